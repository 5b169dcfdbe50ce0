/** The token operations, in registration order: `/token/all` before `/token/{tokenId}`. */
import type { Router } from "../../openapi";
import { registerCreateToken } from "./create";
import { registerListTokens } from "./list";
import { registerRevokeToken } from "./revoke";

export function registerTokenRoutes(app: Router) {
  registerCreateToken(app);
  registerListTokens(app);
  registerRevokeToken(app);
}
