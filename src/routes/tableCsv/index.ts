import type { Router } from "../../openapi";
import { registerExportTableCsv } from "./export";
import { registerImportTableCsv } from "./import";

/** CSV import and export of a table's rows (docs/api-guide.md › CSV import and export). */
export function registerTableCsvRoutes(app: Router) {
  registerImportTableCsv(app);
  registerExportTableCsv(app);
}
