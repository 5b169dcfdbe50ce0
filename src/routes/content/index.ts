import type { Router } from "../../openapi";
import { registerGetContent } from "./get";
import { registerPutContent } from "./put";
import { registerGetDocumentSettings } from "./getSettings";
import { registerUpdateDocumentSettings } from "./updateSettings";

/** A document's block content and export settings. */
export function registerContentRoutes(app: Router) {
  registerGetContent(app);
  registerPutContent(app);
  registerGetDocumentSettings(app);
  registerUpdateDocumentSettings(app);
}
