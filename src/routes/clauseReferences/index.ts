import type { Router } from "../../openapi";
import { registerListClauseReferences } from "./listByDocument";
import { registerCreateClauseReference } from "./create";
import { registerGetClauseReference } from "./get";
import { registerDeleteClauseReference } from "./delete";

/** Clause references (docs/api-guide.md › Content, snapshots and references, E4). */
export function registerClauseReferenceRoutes(app: Router) {
  registerListClauseReferences(app);
  registerCreateClauseReference(app);
  registerGetClauseReference(app);
  registerDeleteClauseReference(app);
}
