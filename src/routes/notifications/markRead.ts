import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, eq, sql } from "drizzle-orm";
import { notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { notifications } from "../../db/schema";
import { now } from "../../lib/ids";
import { notificationDto, NotificationSchema } from "./schema";

const route = defineRoute({
  operationId: "markNotificationRead",
  method: "post",
  path: "/notification/{id}/read",
  tags: ["Notifications"],
  summary: "Mark a notification read",
  security,
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(NotificationSchema), ...errorResponses() },
});

export function registerMarkNotificationRead(app: Router) {
  app.openapi(route, async (c) => {
    const [row] = await c
      .get("db")
      .update(notifications)
      .set({ readAt: sql`COALESCE(${notifications.readAt}, ${now()})` })
      .where(and(eq(notifications.id, c.req.valid("param").id), eq(notifications.userId, c.get("user")._id)))
      .returning();
    if (!row) throw notFound("Notification");
    return c.json({ data: notificationDto(row) }, 200);
  });
}
