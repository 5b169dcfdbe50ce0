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

/**
 * Documents and snapshots of the tenant `tenant()` returns (read when called, so a file can seed it in beforeAll):
 * `newDoc` makes a document in its folder, `put` replaces a document's blocks, `snap` takes a snapshot (the owner's
 * unless `token` says otherwise).
 */
export function snapshotDocs(tenant: () => Tenant) {
  async function newDoc(name = "Snap") {
    const t = tenant();
    return (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
      })
    ).data._id as string;
  }
  const put = (id: string, blocks: unknown) =>
    ok("PUT", `/document/${id}/content`, { token: tenant().owner.token, body: { blocks } });
  const snap = (documentId: string, name: string, token = tenant().owner.token, description?: string) =>
    ok("POST", "/snapshot", { token, body: { documentId, name, ...(description !== undefined && { description }) } });
  return { newDoc, put, snap };
}
