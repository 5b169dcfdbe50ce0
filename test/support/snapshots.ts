/** A snapshot of a fresh document, shared by the snapshots' operation tests (test/routes/snapshots/). */
import { ok, type Tenant } from "./harness";

/** A new document of the tenant's project with the given blocks, and a snapshot "S" of it, both by the owner. */
export async function snapshotOfIn(t: Tenant, blocks: unknown) {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, name: "Snap", type: "DOCUMENT" },
  });
  await ok("PUT", `/document/${doc.data._id}/content`, { token: t.owner.token, body: { blocks } });
  const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: doc.data._id, name: "S" } });
  return { documentId: doc.data._id as string, snapshotId: snap.data._id as string };
}
