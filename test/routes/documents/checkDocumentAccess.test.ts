/** checkDocumentAccess: GET /access/document/{documentId} (src/routes/documents/checkAccess.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
} from "../../support/harness";

/**
 * Document-level grants (docs/api-guide.md › Concepts): a collaborator of a folder reads (or edits) everything below it and
 * nothing beside it; E10 and E20 agree with each other everywhere.
 */
describe("document-level access", () => {
  let t: Tenant;
  let reader: RegisteredUser, writer: RegisteredUser;
  // Project tree:  F/ { a, S/ { b } }   G/ { c }   root
  let F: string, S: string, b: string, G: string, c: string, root: string;

  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;
  const e20 = async (id: string, u: RegisteredUser) =>
    (await ok("GET", `/access/document/${id}`, { token: u.token })).data;

  beforeAll(async () => {
    t = await seedTenant();
    [reader, writer] = await Promise.all([registerUser("Reader"), registerUser("Writer")]);
    F = await mk({ name: "F", type: "FOLDER" });
    await mk({ parentId: F, name: "a", type: "DOCUMENT" });
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

  it("the grant makes only the project readable, not the workspace", async () => {
    await ok("GET", `/project/${t.projectId}`, { token: reader.token });
    expectError(
      await call("PATCH", `/project/${t.projectId}`, { token: writer.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("GET", `/workspace/${t.workspaceId}`, { token: reader.token }), 404, "NotFoundError");
    expect((await ok("GET", `/workspace/all/${t.organizationId}`, { token: reader.token })).data).toEqual([]);
  });

  describe("E20 GET /access/document/{documentId}", () => {
    it("is true for every workspace collaborator, viewers included", async () => {
      for (const u of [t.owner, t.editor, t.viewer]) {
        for (const id of [F, b, c, root]) expect(await e20(id, u)).toBe(true);
      }
    });

    it("is false for a nonexistent id, a soft-deleted document and an outsider, without revealing which", async () => {
      const gone = await mk({ name: "gone", type: "DOCUMENT" });
      await ok("DELETE", `/document/${gone}`, { token: t.owner.token });
      const answers = [
        await call("GET", "/access/document/no-such-document", { token: t.owner.token }),
        await call("GET", `/access/document/${gone}`, { token: t.owner.token }),
        await call("GET", `/access/document/${c}`, { token: t.outsider.token }),
        await call("GET", `/access/document/${c}`, { token: reader.token }),
      ];
      for (const res of answers) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ data: false });
      }
    });

    it("a malformed id is 400; no token is 401", async () => {
      expectError(await call("GET", "/access/document/has%20space", { token: t.owner.token }), 400, "ValidationError");
      expectError(await call("GET", `/access/document/${F}`), 401, "UnauthorizedError");
    });
  });
});

/**
 * Document routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): E10/E20/the tree list in one D1 round trip, writes in at most 3,
 * E10's ETag answered with 304, and If-Match on PATCH/DELETE with 412 leaving the document unchanged.
 */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("documents on the request path", () => {
  let t: Tenant;
  let guestToken: string;
  beforeAll(async () => {
    t = await seedTenant();
    // A guest who reaches the project through one document grant only.
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.doc2Id, role: "viewer" },
    });
    guestToken = t.outsider.token;
    // Spend each token's lastUsedAt touch outside the measured calls.
    await Promise.all([t.owner, t.viewer, t.outsider].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E10 and E20 cost one round trip for a reader, a guest and a stranger alike", async () => {
    for (const token of [t.owner.token, guestToken, t.viewer.token]) {
      const e10 = await call("GET", `/document/${t.doc2Id}`, { token });
      expect(e10.status).toBe(200);
      expect(trips(e10.headers)).toBe(1);
      const e20 = await call("GET", `/access/document/${t.doc2Id}`, { token });
      expect(e20.body).toEqual({ data: true });
      expect(trips(e20.headers)).toBe(1);
    }
    const hidden = await call("GET", `/access/document/${t.docId}`, { token: guestToken });
    expect(hidden.body).toEqual({ data: false });
    expect(trips(hidden.headers)).toBe(1);
  });
});
