import { z } from "@hono/zod-openapi";

export const NotificationSchema = z
  .object({
    _id: z.string(),
    kind: z.string(),
    title: z.string(),
    body: z.string(),
    data: z.record(z.string(), z.unknown()).nullable(),
    isRead: z.boolean(),
    readAt: z.number().nullable(),
    createdAt: z.number(),
    updatedAt: z.number().openapi({ description: "When it was last changed: `readAt` once read, else `createdAt`" }),
  })
  .openapi("Notification");
