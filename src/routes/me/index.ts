import type { Router } from "../../openapi";
import { registerGetMe } from "./get";

export function registerMeRoutes(app: Router) {
  registerGetMe(app);
}
