import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { errorResponses, okData, security, type Router } from "../../openapi";
import { notifications } from "../../db/schema";
import { notificationDto, NotificationSchema } from "./schema";

const route = defineRoute({
  operationId: "listNotifications",
  method: "get",
  path: "/notification/all",
  tags: ["Notifications"],
  summary: "The caller's in-app notifications, newest first (at most 200)",
  security,
  responses: { ...okData(z.array(NotificationSchema)), ...errorResponses() },
});

export function registerListNotifications(app: Router) {
  app.openapi(route, async (c) => {
    const rows = await c
      .get("db")
      .select()
      .from(notifications)
      .where(eq(notifications.userId, c.get("user")._id))
      .orderBy(desc(notifications.createdAt), desc(notifications.id))
      .limit(200);
    return c.json({ data: rows.map(notificationDto) }, 200);
  });
}
