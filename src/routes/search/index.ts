import type { Router } from "../../openapi";
import { registerSearch } from "./search";

export function registerSearchRoutes(app: Router) {
  registerSearch(app);
}
