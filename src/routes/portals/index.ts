import type { Router } from "../../openapi";
import { registerPutBranding } from "./branding";
import { registerPublishRoutes } from "./publish";
import { registerPublishedRoutes } from "./published";

/** Publishing (project admin) and the bearer-authenticated portal reads E13/E14 (API.md §15). */
export function registerPortalRoutes(app: Router) {
  registerPublishRoutes(app);
  registerPutBranding(app);
  registerPublishedRoutes(app);
}
