/** deleteDocument: DELETE /document/{documentId} (src/routes/documents/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { expectDocumentShape, notFoundShape } from "../../support/shapes";

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;

  const create = async (body: Record<string, unknown>, token = t.owner.token): Promise<Doc> =>
    (await ok("POST", "/document", { token, body: { projectId: t.projectId, ...body } })).data;
  const e10 = (id: string, token = t.owner.token) => call("GET", `/document/${id}`, { token });
  const listIds = async (projectId = t.projectId, token = t.owner.token): Promise<string[]> =>
    (await ok("GET", `/document/all/${projectId}`, { token })).data.map((d: Doc) => d._id);

  beforeAll(async () => {
    t = await seedTenant();
    otherProjectId = (
      await ok("POST", "/project", {
        token: t.owner.token,
        body: { workspaceId: t.workspaceId, name: "Other project" },
      })
    ).data._id;
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: otherProjectId, name: "Other folder", type: "FOLDER" },
    });
    const outsiderProject = await ok("POST", "/project", {
      token: t.outsider.token,
      body: { workspaceId: t.outsider.workspaceId, name: "Theirs" },
    });
    await ok("POST", "/document", {
      token: t.outsider.token,
      body: { projectId: outsiderProject.data._id, name: "Their folder", type: "FOLDER" },
    });
  });

  describe("DELETE and restore", () => {
    it("DELETE soft-deletes the document and its subtree", async () => {
      const folder = await create({ name: "Del", type: "FOLDER" });
      const sub = await create({ parentId: folder._id, name: "Sub", type: "FOLDER" });
      const a = await create({ parentId: folder._id, name: "a", type: "DOCUMENT" });
      const b = await create({ parentId: sub._id, name: "b", type: "DOCUMENT" });
      const res = await ok("DELETE", `/document/${folder._id}`, { token: t.editor.token });
      expect(res).toEqual({ data: { success: true, deletedDocuments: 4 } });
      const ids = await listIds();
      for (const d of [folder, sub, a, b]) {
        expect(ids).not.toContain(d._id);
        const read = await e10(d._id);
        expect(read.status).toBe(404);
        expect(read.body).toEqual(notFoundShape(d._id));
        expect(await ok("GET", `/access/document/${d._id}`, { token: t.owner.token })).toEqual({ data: false });
      }
      expectError(await call("DELETE", `/document/${folder._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("DELETE", `/document/${b._id}`, { token: t.owner.token }), 404, "NotFoundError");
      // Siblings outside the subtree are untouched.
      expect(ids).toContain(t.docId);
    });

    it("restore brings back exactly the subtree deleted with it", async () => {
      const folder = await create({ name: "Restorable", type: "FOLDER" });
      const keep = await create({ parentId: folder._id, name: "keep", type: "DOCUMENT" });
      const earlier = await create({ parentId: folder._id, name: "deleted earlier", type: "DOCUMENT" });
      const sub = await create({ parentId: folder._id, name: "sub", type: "FOLDER" });
      const deep = await create({ parentId: sub._id, name: "deep", type: "DOCUMENT" });
      expect((await ok("DELETE", `/document/${earlier._id}`, { token: t.owner.token })).data.deletedDocuments).toBe(1);
      expect((await ok("DELETE", `/document/${folder._id}`, { token: t.owner.token })).data.deletedDocuments).toBe(4);

      const restored = await ok("POST", `/document/${folder._id}/restore`, { token: t.editor.token });
      expect(restored.data.restoredDocuments).toBe(4);
      const { restoredDocuments, ...doc } = restored.data;
      expectDocumentShape(doc);
      expect(doc).toMatchObject({ _id: folder._id, isDeleted: false, name: "Restorable" });

      const ids = await listIds();
      for (const d of [folder, keep, sub, deep]) {
        expect(ids).toContain(d._id);
        const read = await e10(d._id);
        expect(read.status).toBe(200);
        expect(read.body.data.isDeleted).toBe(false);
      }
      expect(ids).not.toContain(earlier._id);
      expect((await e10(earlier._id)).body).toEqual(notFoundShape(earlier._id));

      // The child deleted on its own can be restored on its own now that its parent is back.
      const alone = await ok("POST", `/document/${earlier._id}/restore`, { token: t.owner.token });
      expect(alone.data).toMatchObject({ _id: earlier._id, isDeleted: false, restoredDocuments: 1 });
      expect((await e10(earlier._id)).status).toBe(200);
    });

    it("restoring a child whose parent is deleted is 409", async () => {
      const folder = await create({ name: "Parent gone", type: "FOLDER" });
      const child = await create({ parentId: folder._id, name: "child", type: "DOCUMENT" });
      await ok("DELETE", `/document/${folder._id}`, { token: t.owner.token });
      expectError(await call("POST", `/document/${child._id}/restore`, { token: t.owner.token }), 409, "ConflictError");
      expect((await e10(child._id)).status).toBe(404);
      // A child deleted before its parent also waits for the parent.
      const folder2 = await create({ name: "Parent gone 2", type: "FOLDER" });
      const child2 = await create({ parentId: folder2._id, name: "child2", type: "DOCUMENT" });
      await ok("DELETE", `/document/${child2._id}`, { token: t.owner.token });
      await ok("DELETE", `/document/${folder2._id}`, { token: t.owner.token });
      expectError(
        await call("POST", `/document/${child2._id}/restore`, { token: t.owner.token }),
        409,
        "ConflictError",
      );
    });

    it("a viewer cannot delete (403); an outsider gets 404", async () => {
      expectError(await call("DELETE", `/document/${t.docId}`, { token: t.viewer.token }), 403, "ForbiddenError");
      expectError(await call("DELETE", `/document/${t.docId}`, { token: t.outsider.token }), 404, "NotFoundError");
      expect((await e10(t.docId)).status).toBe(200);
    });
  });
});

/**
 * Document routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): E10/E20/the tree list in one D1 round trip, writes in at most 3,
 * E10's ETag answered with 304, and If-Match on PATCH/DELETE with 412 leaving the document unchanged.
 */
describe("documents on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    // A guest who reaches the project through one document grant only.
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.doc2Id, role: "viewer" },
    });
    // Spend each token's lastUsedAt touch outside the measured calls.
    await Promise.all([t.owner, t.viewer, t.outsider].map((u) => call("GET", "/me", { token: u.token })));
  });

  describe("conditional requests", () => {
    it("DELETE with a stale ETag is 412 and deletes nothing; with the current one it deletes", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "To delete", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const etag = (await call("GET", `/document/${id}`, { token: t.owner.token })).headers.get("etag")!;
      await ok("PATCH", `/document/${id}`, { token: t.owner.token, body: { reference: "R-1" } });
      expectError(
        await call("DELETE", `/document/${id}`, { token: t.owner.token, headers: { "if-match": etag } }),
        412,
        "PreconditionFailedError",
      );
      expect((await call("GET", `/document/${id}`, { token: t.owner.token })).status).toBe(200);
      const current = (await call("GET", `/document/${id}`, { token: t.owner.token })).headers.get("etag")!;
      const deleted = await call("DELETE", `/document/${id}`, {
        token: t.owner.token,
        headers: { "if-match": current },
      });
      expect(deleted.status).toBe(200);
      expect((await call("GET", `/document/${id}`, { token: t.owner.token })).status).toBe(404);
    });
  });
});
