import type { Router } from "../../openapi";
import { registerCreateView } from "./create";
import { registerListViews } from "./list";
import { registerGetView } from "./get";
import { registerUpdateView } from "./update";
import { registerDeleteView } from "./delete";
import { registerListViewRows } from "./rows";

/** Views (docs/api-guide.md › Views and aggregates): the static `/table/view/…` paths come before `/table/{tableId}/…`. */
export function registerViewRoutes(app: Router) {
  registerListViewRows(app);
  registerGetView(app);
  registerUpdateView(app);
  registerDeleteView(app);
  registerCreateView(app);
  registerListViews(app);
}
