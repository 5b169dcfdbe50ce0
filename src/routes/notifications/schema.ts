import { z } from "@hono/zod-openapi";
import type { notifications } from "../../db/schema";

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
  })
  .openapi("Notification");

export function notificationDto(row: typeof notifications.$inferSelect) {
  return {
    _id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    data: row.data ?? null,
    isRead: row.readAt !== null,
    readAt: row.readAt,
    createdAt: row.createdAt,
  };
}
