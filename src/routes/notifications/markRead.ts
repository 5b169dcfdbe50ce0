import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { markNotificationRead } from "../../services/notifications/notifications";
import { NotificationSchema } from "./schema";

const route = defineRoute({
  operationId: "markNotificationRead",
  method: "post",
  path: "/notification/{id}/read",
  shard: "directory",
  // Its service needs the caller before its first read (or writes first): authenticated on its own, one round trip.
  auth: "token",
  tags: ["Notifications"],
  summary: "Mark a notification read",
  description: "Sets the notification's read time; only the caller's own notifications can be marked (404 otherwise).",
  request: { params: z.object({ id: pathId("id") }) },
  responses: { ...okData(NotificationSchema), ...errorResponses() },
});

export function registerMarkNotificationRead(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await markNotificationRead(ctxOf(c), { notificationId: c.req.valid("param").id }) }, 200),
  );
}
