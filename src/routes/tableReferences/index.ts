import type { Router } from "../../openapi";
import { registerListTableReferences } from "./listByDocument";
import { registerCreateTableReference } from "./create";
import { registerGetTableReference } from "./get";
import { registerDeleteTableReference } from "./delete";

/** Table references (docs/api-guide.md › Content, snapshots and references, E1): `/table/reference…` are static `/table/<static>/…` paths, registered before `/table/{tableId}/…`. */
export function registerTableReferenceRoutes(app: Router) {
  registerListTableReferences(app);
  registerCreateTableReference(app);
  registerGetTableReference(app);
  registerDeleteTableReference(app);
}
