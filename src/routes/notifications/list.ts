import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, type Router } from "../../openapi";
import { listNotifications } from "../../services/notifications/notifications";
import { NotificationSchema } from "./schema";

const route = defineRoute({
  operationId: "listNotifications",
  auth: "batched",
  method: "get",
  path: "/notification/all",
  shard: "directory",
  tags: ["Notifications"],
  summary: "The caller's in-app notifications, newest first (at most 200)",
  description: "The caller's own in-app notifications (automation results and the like), newest first, at most 200.",
  responses: { ...okData(z.array(NotificationSchema)), ...errorResponses() },
});

export function registerListNotifications(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listNotifications(ctxOf(c)) }, 200));
}
