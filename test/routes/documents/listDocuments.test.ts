/** listDocuments: GET /document/all/{projectId} (src/routes/documents/listByProject.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
  call,
  expectError,
} from "../../support/harness";
import { expectDocumentShape } from "../../support/shapes";

/**
 * Document-level grants (docs/api-guide.md › Concepts): a collaborator of a folder reads (or edits) everything below it and
 * nothing beside it; E10 and E20 agree with each other everywhere.
 */
describe("document-level access", () => {
  let t: Tenant;
  let reader: RegisteredUser, writer: RegisteredUser;
  // Project tree:  F/ { a, S/ { b } }   G/ { c }   root
  let F: string, a: string, S: string, b: string, G: string;

  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;

  beforeAll(async () => {
    t = await seedTenant();
    [reader, writer] = await Promise.all([registerUser("Reader"), registerUser("Writer")]);
    F = await mk({ name: "F", type: "FOLDER" });
    a = await mk({ parentId: F, name: "a", type: "DOCUMENT" });
    S = await mk({ parentId: F, name: "S", type: "FOLDER" });
    b = await mk({ parentId: S, name: "b", type: "DOCUMENT" });
    G = await mk({ name: "G", type: "FOLDER" });
    await mk({ parentId: G, name: "c", type: "DOCUMENT" });
    await mk({ name: "root", type: "DOCUMENT" });
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: reader.email, documentId: F } });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: writer.email, documentId: F, role: "editor" },
    });
  });

  it("the tree listing shows only the granted subtree", async () => {
    const list = await ok("GET", `/document/all/${t.projectId}`, { token: reader.token });
    expect(list.data.map((d: any) => d._id).sort()).toEqual([F, a, S, b].sort());
  });
});

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;

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

  describe("GET /document/all/{projectId}", () => {
    it("lists live documents ordered by parentId, then order", async () => {
      const project = (
        await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Tree" } })
      ).data._id;
      const mk = async (body: Record<string, unknown>) =>
        (await ok("POST", "/document", { token: t.owner.token, body: { projectId: project, ...body } })).data as Doc;
      const b = await mk({ name: "B", type: "FOLDER", order: 2 });
      const a = await mk({ name: "A", type: "FOLDER", order: 1 });
      const rootDoc = await mk({ name: "root doc", type: "DOCUMENT", order: 0 });
      const a5 = await mk({ parentId: a._id, name: "a5", type: "DOCUMENT", order: 5 });
      const a2 = await mk({ parentId: a._id, name: "a2", type: "DOCUMENT", order: 2 });
      const b0 = await mk({ parentId: b._id, name: "b0", type: "FOLDER", order: 0 });
      const b00 = await mk({ parentId: b0._id, name: "b00", type: "DOCUMENT", order: 0 });
      const deleted = await mk({ parentId: a._id, name: "deleted", type: "DOCUMENT", order: 3 });
      await ok("DELETE", `/document/${deleted._id}`, { token: t.owner.token });

      const res = await ok("GET", `/document/all/${project}`, { token: t.viewer.token });
      for (const d of res.data) expectDocumentShape(d);
      const byParent = (x: Doc, y: Doc) =>
        x.parentId === y.parentId
          ? x.order - y.order
          : x.parentId === null
            ? -1
            : y.parentId === null
              ? 1
              : x.parentId < y.parentId
                ? -1
                : 1;
      const expected = [rootDoc, a, b, a5, a2, b0, b00].sort(byParent).map((d) => d._id);
      expect(res.data.map((d: Doc) => d._id)).toEqual(expected);
      expect(expected.slice(0, 3)).toEqual([rootDoc._id, a._id, b._id]);
      expect(res.data.find((d: Doc) => d._id === a2._id)).toEqual(a2);
    });

    it("is 404 for an outsider and for an unknown project", async () => {
      expectError(await call("GET", `/document/all/${t.projectId}`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/document/all/no-such-project", { token: t.owner.token }), 404, "NotFoundError");
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

  it("the tree list costs one round trip and shows a guest only the granted document", async () => {
    const all = await call("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(all.status).toBe(200);
    expect(trips(all.headers)).toBe(1);
    expect(all.body.data.map((d: { _id: string }) => d._id)).toEqual(
      expect.arrayContaining([t.folderId, t.docId, t.doc2Id]),
    );
    const guest = await call("GET", `/document/all/${t.projectId}`, { token: guestToken });
    expect(trips(guest.headers)).toBe(1);
    expect(guest.body.data.map((d: { _id: string }) => d._id)).toEqual([t.doc2Id]);
  });
});
