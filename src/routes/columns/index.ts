import type { Router } from "../../openapi";
import { registerListColumns } from "./list";
import { registerUpdateColumn } from "./update";
import { registerDeleteColumn } from "./delete";
import { registerApplyComputedColumn } from "./computedApply";
import { registerCreateColumn } from "./create";

/** Columns (docs/api-guide.md › Tables, columns, rows, cells, E11, E3): the static `/table/columns/…` and `/table/column/…` paths before `/table/{tableId}/column`. */
export function registerColumnRoutes(app: Router) {
  registerListColumns(app);
  registerUpdateColumn(app);
  registerDeleteColumn(app);
  registerApplyComputedColumn(app);
  registerCreateColumn(app);
}
