import type { Router } from "../../openapi";
import { registerCreateUser } from "./createUser";

export function registerAdminRoutes(app: Router) {
  registerCreateUser(app);
}
