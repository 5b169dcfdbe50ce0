import type { Router } from "../../openapi";
import { registerUpsertCell } from "./upsert";
import { registerGetCell } from "./get";

/** Cells (docs/api-guide.md › Tables, columns, rows, cells, E15): static `/table/row/…/cell/…` and `/table/cell/…` paths. */
export function registerCellRoutes(app: Router) {
  registerUpsertCell(app);
  registerGetCell(app);
}
