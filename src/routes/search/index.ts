import type { Router } from "../../openapi";
import { registerReindexSearch } from "./reindex";
import { registerSearch } from "./search";

export function registerSearchRoutes(app: Router) {
  registerSearch(app);
  registerReindexSearch(app);
}
