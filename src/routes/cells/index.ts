import type { Router } from "../../openapi";
import { registerUpsertCell } from "./upsert";
import { registerGetCell } from "./get";

/** Cells (API.md §7, E15): static `/table/row/…/cell/…` and `/table/cell/…` paths. */
export function registerCellRoutes(app: Router) {
  registerUpsertCell(app);
  registerGetCell(app);
}
