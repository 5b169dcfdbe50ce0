/** OAuth 2.1 for third-party apps (docs/api-guide.md › OAuth apps). */
import type { Router } from "../../openapi";
import { registerOAuthAppRoutes } from "./apps";
import { registerOAuthAuthorize } from "./authorize";
import { registerOAuthToken } from "./token";

export function registerOAuthRoutes(app: Router) {
  registerOAuthAppRoutes(app);
  registerOAuthAuthorize(app);
  registerOAuthToken(app);
}
