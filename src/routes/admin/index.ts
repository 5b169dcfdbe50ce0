import type { Router } from "../../openapi";
import { registerAdoptLegacy } from "./adoptLegacy";
import { registerCreateUser } from "./createUser";

export function registerAdminRoutes(app: Router) {
  registerCreateUser(app);
  registerAdoptLegacy(app);
}
