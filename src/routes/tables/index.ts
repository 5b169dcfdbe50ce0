import type { Router } from "../../openapi";
import { registerListTableIds } from "./listIds";
import { registerCreateTable } from "./create";
import { registerGetTable } from "./get";
import { registerUpdateTable } from "./update";
import { registerDeleteTable } from "./delete";

/** Tables (docs/api-guide.md › Tables, columns, rows, cells): the static `/table/all/…` path before `/table/{tableId}`. */
export function registerTableRoutes(app: Router) {
  registerListTableIds(app);
  registerCreateTable(app);
  registerGetTable(app);
  registerUpdateTable(app);
  registerDeleteTable(app);
}
