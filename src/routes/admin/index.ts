import type { Router } from "../../openapi";
import { registerAdoptLegacy } from "./adoptLegacy";
import { registerCreateUser } from "./createUser";
import { registerShardMoves } from "./moveShard";

export function registerAdminRoutes(app: Router) {
  registerCreateUser(app);
  registerAdoptLegacy(app);
  registerShardMoves(app);
}
