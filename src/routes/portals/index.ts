import type { Router } from "../../openapi";
import { registerPutBranding } from "./branding";
import { registerPublishRoutes } from "./publish";
import { registerPublishedRoutes } from "./published";

/** Publishing (project admin) and the bearer-authenticated portal reads E13/E14 (docs/api-guide.md › Automations, published portals, collaborative editing). */
export function registerPortalRoutes(app: Router) {
  registerPublishRoutes(app);
  registerPutBranding(app);
  registerPublishedRoutes(app);
}
