import type { Router } from "../../openapi";
import { registerListChanges } from "./list";
import { registerGetRowHistory } from "./rowHistory";
import { registerGetDocumentHistory } from "./documentHistory";

/** The change feed and history (docs/api-guide.md › Changes, history and audit). */
export function registerChangeRoutes(app: Router) {
  registerListChanges(app);
  registerGetRowHistory(app);
  registerGetDocumentHistory(app);
}
