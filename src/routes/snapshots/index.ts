import type { Router } from "../../openapi";
import { registerCreateSnapshot } from "./create";
import { registerListSnapshots } from "./list";
import { registerGetSnapshot } from "./get";
import { registerUpdateSnapshot } from "./update";
import { registerRestoreSnapshot } from "./restore";
import { registerDeleteSnapshot } from "./delete";

/** Snapshots of a document's content. `/snapshot/all/{documentId}` before `/snapshot/{snapshotId}`. */
export function registerSnapshotRoutes(app: Router) {
  registerCreateSnapshot(app);
  registerListSnapshots(app);
  registerGetSnapshot(app);
  registerUpdateSnapshot(app);
  registerRestoreSnapshot(app);
  registerDeleteSnapshot(app);
}
