/** getDocument: GET /document/{documentId} (src/routes/documents/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
  expectError,
} from "../../support/harness";
import { expectDocumentShape, notFoundShape } from "../../support/shapes";

/**
 * Document-level grants (docs/api-guide.md › Concepts): a collaborator of a folder reads (or edits) everything below it and
 * nothing beside it; E10 and E20 agree with each other everywhere.
 */
describe("document-level access", () => {
  let t: Tenant;
  let reader: RegisteredUser, writer: RegisteredUser;
  // Project tree:  F/ { a, S/ { b } }   G/ { c }   root
  let F: string, a: string, S: string, b: string, G: string, c: string, root: string;

  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;
  const e10 = (id: string, u: RegisteredUser) => call("GET", `/document/${id}`, { token: u.token });
  const e20 = async (id: string, u: RegisteredUser) =>
    (await ok("GET", `/access/document/${id}`, { token: u.token })).data;

  beforeAll(async () => {
    t = await seedTenant();
    [reader, writer] = await Promise.all([registerUser("Reader"), registerUser("Writer")]);
    F = await mk({ name: "F", type: "FOLDER" });
    a = await mk({ parentId: F, name: "a", type: "DOCUMENT" });
    S = await mk({ parentId: F, name: "S", type: "FOLDER" });
    b = await mk({ parentId: S, name: "b", type: "DOCUMENT" });
    G = await mk({ name: "G", type: "FOLDER" });
    c = await mk({ parentId: G, name: "c", type: "DOCUMENT" });
    root = await mk({ name: "root", type: "DOCUMENT" });
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: reader.email, documentId: F } });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: writer.email, documentId: F, role: "editor" },
    });
  });

  it("a folder grant reads the folder and everything below it (E10 200, E20 true)", async () => {
    for (const id of [F, a, S, b]) {
      const res = await e10(id, reader);
      expect(res.status, id).toBe(200);
      expectDocumentShape(res.body.data);
      expect(res.body.data._id).toBe(id);
      expect(await e20(id, reader)).toBe(true);
    }
  });

  it("but nothing outside it (E10 not-found shape, E20 false)", async () => {
    for (const id of [G, c, root, t.folderId, t.docId]) {
      const res = await e10(id, reader);
      expect(res.status, id).toBe(404);
      expect(res.body).toEqual(notFoundShape(id));
      expect(await e20(id, reader)).toBe(false);
    }
  });
});

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;

  const create = async (body: Record<string, unknown>, token = t.owner.token): Promise<Doc> =>
    (await ok("POST", "/document", { token, body: { projectId: t.projectId, ...body } })).data;
  const e10 = (id: string, token = t.owner.token) => call("GET", `/document/${id}`, { token });

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

  describe("E10 GET /document/{documentId}", () => {
    it("returns the Document record to every workspace collaborator", async () => {
      for (const u of [t.owner, t.editor, t.viewer]) {
        const res = await e10(t.docId, u.token);
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(["data"]);
        expectDocumentShape(res.body.data);
        expect(res.body.data).toMatchObject({
          _id: t.docId,
          parentId: t.folderId,
          name: "Doc 1",
          type: "DOCUMENT",
          projectId: t.projectId,
          workspaceId: t.workspaceId,
        });
      }
    });

    it("answers the not-found shape with 404 for missing, soft-deleted and unreadable documents", async () => {
      const missing = await e10("no-such-document");
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual(notFoundShape("no-such-document"));

      const gone = await create({ name: "Gone", type: "DOCUMENT" });
      await ok("DELETE", `/document/${gone._id}`, { token: t.owner.token });
      const deleted = await e10(gone._id);
      expect(deleted.status).toBe(404);
      expect(deleted.body).toEqual(notFoundShape(gone._id));

      const unreadable = await e10(t.docId, t.outsider.token);
      expect(unreadable.status).toBe(404);
      expect(unreadable.body).toEqual(notFoundShape(t.docId));
    });

    it("a malformed id is 400 ValidationError", async () => {
      expectError(await e10("has%20space"), 400, "ValidationError");
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
    it("E10's ETag answers 304 on If-None-Match and changes when the document does", async () => {
      const first = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      const again = await call("GET", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-none-match": etag },
      });
      expect(again.status).toBe(304);
      await ok("PATCH", `/document/${t.docId}`, { token: t.owner.token, body: { description: "changed" } });
      const after = await call("GET", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-none-match": etag },
      });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
    });

    it("If-Match uses the strong comparison (RFC 9110 §13.1.1): the current tag marked weak is 412, nothing changed", async () => {
      const etag = (await call("GET", `/document/${t.docId}`, { token: t.owner.token })).headers.get("etag")!;
      for (const [method, body] of [
        ["PATCH", { name: "Weakly matched" }],
        ["DELETE", undefined],
      ] as const) {
        expectError(
          await call(method, `/document/${t.docId}`, {
            token: t.owner.token,
            headers: { "if-match": `W/${etag}` },
            body,
          }),
          412,
          "PreconditionFailedError",
        );
      }
      const after = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).toBe(etag);
    });
  });
});
