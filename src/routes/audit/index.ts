import type { Router } from "../../openapi";
import { registerExportAuditLog } from "./export";
import { registerListAuditLog } from "./list";

/** The organization's audit log (docs/api-guide.md › Changes, history and audit). */
export function registerAuditRoutes(app: Router) {
  registerListAuditLog(app);
  registerExportAuditLog(app);
}
