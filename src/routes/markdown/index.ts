import type { Router } from "../../openapi";
import { registerExportMarkdown } from "./export";
import { registerImportMarkdownDocument } from "./import";

/** Documents as Markdown (docs/api-guide.md › Markdown import and export); before /document/{documentId}/… */
export function registerMarkdownRoutes(app: Router) {
  registerImportMarkdownDocument(app);
  registerExportMarkdown(app);
}
