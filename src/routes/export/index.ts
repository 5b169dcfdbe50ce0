import type { Router } from "../../openapi";
import { registerDocToPdf } from "./docToPdf";
import { registerGetDocumentsData } from "./getDocumentsData";

/** E5 export data and E6 PDF conversion. */
export function registerExportRoutes(app: Router) {
  registerDocToPdf(app);
  registerGetDocumentsData(app);
}
