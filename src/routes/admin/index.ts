import type { Router } from "../../openapi";
import { registerCreateUser } from "./createUser";
import { registerShardMoves } from "./moveShard";

export function registerAdminRoutes(app: Router) {
  registerCreateUser(app);
  registerShardMoves(app);
}
