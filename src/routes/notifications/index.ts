/** The notification operations, in registration order: `/notification/all` before `/notification/{id}/…`. */
import type { Router } from "../../openapi";
import { registerListNotifications } from "./list";
import { registerMarkNotificationRead } from "./markRead";

export function registerNotificationRoutes(app: Router) {
  registerListNotifications(app);
  registerMarkNotificationRead(app);
}
