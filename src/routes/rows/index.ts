import type { Router } from "../../openapi";
import { registerGetRow } from "./get";
import { registerDeleteRow } from "./delete";
import { registerCreateRow } from "./create";
import { registerBulkCreateRows } from "./bulkCreate";
import { registerListRows } from "./list";
import { registerQueryRows } from "./query";
import { registerAggregateRows } from "./aggregate";
import { registerPatchRow } from "./patchRow";
import { registerBulkUpdateRows } from "./bulkUpdate";
import { registerUpsertRows } from "./upsert";
import { registerBulkDeleteRows } from "./bulkDelete";
import { registerBulkRestoreRows } from "./bulkRestore";

/**
 * Rows (docs/api-guide.md › Tables, columns, rows, cells, E16): the static `/table/row/{rowId}` paths first, then `/table/{tableId}/row(s)`. Registered
 * after every other `/table/<static>/…` folder, since GET `/table/{tableId}/rows` would otherwise shadow them.
 */
export function registerRowRoutes(app: Router) {
  registerGetRow(app);
  registerDeleteRow(app);
  registerPatchRow(app);
  registerCreateRow(app);
  registerBulkCreateRows(app);
  registerListRows(app);
  registerQueryRows(app);
  registerAggregateRows(app);
  // docs/api-guide.md › Bulk writes
  registerBulkUpdateRows(app);
  registerUpsertRows(app);
  registerBulkDeleteRows(app);
  registerBulkRestoreRows(app);
}
