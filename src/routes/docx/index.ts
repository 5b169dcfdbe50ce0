import type { Router } from "../../openapi";
import { registerCreateDocx } from "./create";
import { registerPutDocxVersion } from "./putVersion";
import { registerExportDocx } from "./export";
import { registerMarkDocxSeeded } from "./markSeeded";

/** EXTERNAL DOCX documents. Registered before `/document/{documentId}` so `/document/docx/…` is never read as an id. */
export function registerDocxRoutes(app: Router) {
  registerCreateDocx(app);
  registerPutDocxVersion(app);
  registerExportDocx(app);
  registerMarkDocxSeeded(app);
}
