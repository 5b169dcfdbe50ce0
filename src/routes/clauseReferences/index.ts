import type { Router } from "../../openapi";
import { registerListClauseReferences } from "./listByDocument";
import { registerCreateClauseReference } from "./create";
import { registerGetClauseReference } from "./get";
import { registerDeleteClauseReference } from "./delete";

/** Clause references (API.md §9, E4). */
export function registerClauseReferenceRoutes(app: Router) {
  registerListClauseReferences(app);
  registerCreateClauseReference(app);
  registerGetClauseReference(app);
  registerDeleteClauseReference(app);
}
