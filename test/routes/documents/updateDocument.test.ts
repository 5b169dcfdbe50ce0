/** updateDocument: PATCH /document/{documentId} (src/routes/documents/update.ts) — its happy path, errors and request-path checks. */
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
import { notFoundShape } from "../../support/shapes";

/**
 * Document-level grants (docs/api-guide.md › Concepts): a collaborator of a folder reads (or edits) everything below it and
 * nothing beside it; E10 and E20 agree with each other everywhere.
 */
describe("document-level access", () => {
  let t: Tenant;
  let reader: RegisteredUser, writer: RegisteredUser;
  // Project tree:  F/ { a, S/ { b } }   G/ { c }   root
  let F: string, a: string, S: string, b: string, G: string, c: string;

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
    await mk({ name: "root", type: "DOCUMENT" });
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: reader.email, documentId: F } });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: writer.email, documentId: F, role: "editor" },
    });
  });

  it("a document moved out of the folder is no longer readable", async () => {
    const leaving = await mk({ parentId: F, name: "leaving", type: "DOCUMENT" });
    expect(await e20(leaving, reader)).toBe(true);
    await ok("PATCH", `/document/${leaving}`, { token: t.owner.token, body: { parentId: G } });
    expect(await e20(leaving, reader)).toBe(false);
    expect((await e10(leaving, reader)).body).toEqual(notFoundShape(leaving));
  });

  it("a viewer grant cannot write (403); outside the grant writes are 404", async () => {
    expectError(
      await call("PATCH", `/document/${a}`, { token: reader.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("DELETE", `/document/${b}`, { token: reader.token }), 403, "ForbiddenError");
    expectError(
      await call("POST", "/document", {
        token: reader.token,
        body: { projectId: t.projectId, parentId: S, name: "x", type: "DOCUMENT" },
      }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", "/document/invite-user", {
        token: reader.token,
        body: { email: writer.email, documentId: a },
      }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", `/document/${c}`, { token: reader.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expect((await e10(a, t.owner)).body.data.name).toBe("a");
  });

  it("an editor grant edits below the folder, but not at the project root or outside", async () => {
    const renamed = await ok("PATCH", `/document/${b}`, { token: writer.token, body: { name: "b edited" } });
    expect(renamed.data.name).toBe("b edited");
    const created = await ok("POST", "/document", {
      token: writer.token,
      body: { projectId: t.projectId, parentId: S, name: "by writer", type: "DOCUMENT" },
    });
    expect(created.data.collaborators).toEqual([{ userId: writer.id, role: "owner" }]);
    // Moves stay inside what the editor can edit.
    await ok("PATCH", `/document/${created.data._id}`, { token: writer.token, body: { parentId: F } });
    expectError(
      await call("PATCH", `/document/${created.data._id}`, { token: writer.token, body: { parentId: G } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PATCH", `/document/${created.data._id}`, { token: writer.token, body: { parentId: null } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", "/document", {
        token: writer.token,
        body: { projectId: t.projectId, name: "root by writer", type: "DOCUMENT" },
      }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", `/document/${c}`, { token: writer.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    const pub = await ok("POST", `/document/${a}/publish`, { token: writer.token, body: {} });
    expect(pub.data.isPublished).toBe(true);
  });
});

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;
  let otherFolderId: string;
  let outsiderFolderId: string;

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
    otherFolderId = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: otherProjectId, name: "Other folder", type: "FOLDER" },
      })
    ).data._id;
    const outsiderProject = await ok("POST", "/project", {
      token: t.outsider.token,
      body: { workspaceId: t.outsider.workspaceId, name: "Theirs" },
    });
    outsiderFolderId = (
      await ok("POST", "/document", {
        token: t.outsider.token,
        body: { projectId: outsiderProject.data._id, name: "Their folder", type: "FOLDER" },
      })
    ).data._id;
  });

  describe("PATCH /document/{documentId}", () => {
    it("renames and updates the settable members; the rest stays", async () => {
      const d = await create({ parentId: t.folderId, name: "Draft", type: "DOCUMENT" });
      const res = await ok("PATCH", `/document/${d._id}`, {
        token: t.editor.token,
        body: {
          name: "Final",
          description: "desc",
          reference: "R-1",
          order: 7,
          icon: { name: "i", color: "c" },
          emoji: { unified: "u", emojiStyle: "s" },
        },
      });
      expect(res.data).toEqual({
        ...d,
        name: "Final",
        description: "desc",
        reference: "R-1",
        order: 7,
        icon: { name: "i", color: "c" },
        emoji: { unified: "u", emojiStyle: "s" },
        updatedAt: expect.any(Number),
      });
      expect(res.data.updatedAt).toBeGreaterThanOrEqual(d.updatedAt);
      expect((await e10(d._id)).body.data).toEqual(res.data);
      const cleared = await ok("PATCH", `/document/${d._id}`, {
        token: t.owner.token,
        body: { icon: null, emoji: null },
      });
      expect(cleared.data).toMatchObject({ icon: null, emoji: null, name: "Final" });
    });

    it("accepts the record sent back and ignores its response-only members", async () => {
      const d = await create({ parentId: t.folderId, name: "Echo", type: "DOCUMENT" });
      const sentBack = {
        ...d,
        name: "Echoed",
        _id: "x",
        projectId: otherProjectId,
        userId: t.outsider.id,
        workspaceId: "w",
        type: "FOLDER",
        createdAt: 1,
        updatedAt: 1,
        isPublished: true,
        publishedSettings: { publishedById: "x", publishedAt: 1, styling: {}, domainSlug: "x" },
        external: { type: "PDF", resourcePath: "p", resourceId: "r" },
        collaborators: [{ userId: t.outsider.id, role: "owner" }],
        isDeleted: true,
      };
      const res = await ok("PATCH", `/document/${d._id}`, { token: t.owner.token, body: sentBack });
      expect(res.data).toEqual({ ...d, name: "Echoed", updatedAt: expect.any(Number) });
      expect((await e10(d._id, t.outsider.token)).status).toBe(404);
    });

    it("a viewer gets 403, an outsider 404, a deleted document 404, an unknown member 400", async () => {
      expectError(
        await call("PATCH", `/document/${t.docId}`, { token: t.viewer.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/document/${t.docId}`, { token: t.outsider.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PATCH", "/document/no-such-doc", { token: t.owner.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      const gone = await create({ name: "Gone", type: "DOCUMENT" });
      await ok("DELETE", `/document/${gone._id}`, { token: t.owner.token });
      expectError(
        await call("PATCH", `/document/${gone._id}`, { token: t.owner.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      const unknown = await call("PATCH", `/document/${t.docId}`, { token: t.owner.token, body: { content: "x" } });
      expectError(unknown, 400, "ValidationError");
      expect(unknown.body.details.map((d: any) => d.path)).toEqual(["content"]);
      expect((await e10(t.docId)).body.data.name).toBe("Doc 1");
    });

    describe("moves", () => {
      it("moves a document into another folder and back to the root", async () => {
        const from = await create({ name: "From", type: "FOLDER" });
        const to = await create({ name: "To", type: "FOLDER" });
        const d = await create({ parentId: from._id, name: "Mover", type: "DOCUMENT" });
        const moved = await ok("PATCH", `/document/${d._id}`, { token: t.editor.token, body: { parentId: to._id } });
        expect(moved.data.parentId).toBe(to._id);
        expect((await e10(d._id)).body.data.parentId).toBe(to._id);
        const list = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data as Doc[];
        expect(list.find((x) => x._id === d._id)?.parentId).toBe(to._id);
        const toRoot = await ok("PATCH", `/document/${d._id}`, { token: t.owner.token, body: { parentId: null } });
        expect(toRoot.data.parentId).toBeNull();
        // Sending the current parent is not a move.
        const same = await ok("PATCH", `/document/${d._id}`, {
          token: t.owner.token,
          body: { parentId: null, name: "Still root" },
        });
        expect(same.data).toMatchObject({ parentId: null, name: "Still root" });
      });

      it("moving a folder carries its subtree", async () => {
        const outer = await create({ name: "Outer", type: "FOLDER" });
        const inner = await create({ parentId: outer._id, name: "Inner", type: "FOLDER" });
        const leaf = await create({ parentId: inner._id, name: "Leaf", type: "DOCUMENT" });
        const target = await create({ name: "Target", type: "FOLDER" });
        await ok("PATCH", `/document/${inner._id}`, { token: t.owner.token, body: { parentId: target._id } });
        expect((await e10(leaf._id)).body.data.parentId).toBe(inner._id);
        expect((await e10(inner._id)).body.data.parentId).toBe(target._id);
        // Deleting the new parent now takes the moved subtree with it.
        const del = await ok("DELETE", `/document/${target._id}`, { token: t.owner.token });
        expect(del.data.deletedDocuments).toBe(3);
        expect((await e10(leaf._id)).status).toBe(404);
        expect((await e10(outer._id)).status).toBe(200);
      });

      it("a move into itself or its own subtree is 409 and changes nothing", async () => {
        const top = await create({ name: "Top", type: "FOLDER" });
        const mid = await create({ parentId: top._id, name: "Mid", type: "FOLDER" });
        const low = await create({ parentId: mid._id, name: "Low", type: "FOLDER" });
        expectError(
          await call("PATCH", `/document/${top._id}`, { token: t.owner.token, body: { parentId: top._id } }),
          409,
          "ConflictError",
        );
        expectError(
          await call("PATCH", `/document/${top._id}`, { token: t.owner.token, body: { parentId: mid._id } }),
          409,
          "ConflictError",
        );
        expectError(
          await call("PATCH", `/document/${top._id}`, {
            token: t.owner.token,
            body: { parentId: low._id, name: "renamed" },
          }),
          409,
          "ConflictError",
        );
        expectError(
          await call("PATCH", `/document/${mid._id}`, { token: t.owner.token, body: { parentId: low._id } }),
          409,
          "ConflictError",
        );
        const reread = await e10(top._id);
        expect(reread.body.data).toMatchObject({ parentId: null, name: "Top" });
        expect((await e10(low._id)).body.data.parentId).toBe(mid._id);
      });

      it("a move into a non-folder or another project's folder is 400; into a missing or unreadable folder 404", async () => {
        const d = await create({ parentId: t.folderId, name: "Stay", type: "DOCUMENT" });
        const notFolder = await call("PATCH", `/document/${d._id}`, {
          token: t.owner.token,
          body: { parentId: t.docId },
        });
        expectError(notFolder, 400, "ValidationError");
        expect(notFolder.body.details.map((x: any) => x.path)).toEqual(["parentId"]);
        expectError(
          await call("PATCH", `/document/${d._id}`, { token: t.owner.token, body: { parentId: otherFolderId } }),
          400,
          "ValidationError",
        );
        expectError(
          await call("PATCH", `/document/${d._id}`, { token: t.owner.token, body: { parentId: "no-such-folder" } }),
          404,
          "NotFoundError",
        );
        expectError(
          await call("PATCH", `/document/${d._id}`, { token: t.owner.token, body: { parentId: outsiderFolderId } }),
          404,
          "NotFoundError",
        );
        expect((await e10(d._id)).body.data.parentId).toBe(t.folderId);
      });

      it("a viewer cannot move (403)", async () => {
        const target = await create({ name: "Nope", type: "FOLDER" });
        expectError(
          await call("PATCH", `/document/${t.docId}`, { token: t.viewer.token, body: { parentId: target._id } }),
          403,
          "ForbiddenError",
        );
      });

      it("a viewer moving into a missing or unreadable folder gets 404: existence is checked before the role (docs/api-guide.md › Conventions)", async () => {
        expectError(
          await call("PATCH", `/document/${t.docId}`, { token: t.viewer.token, body: { parentId: "no-such-folder" } }),
          404,
          "NotFoundError",
        );
        expectError(
          await call("PATCH", `/document/${t.docId}`, { token: t.viewer.token, body: { parentId: outsiderFolderId } }),
          404,
          "NotFoundError",
        );
      });
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
    it("PATCH with the current ETag succeeds and returns the new one; a stale ETag is 412 and changes nothing", async () => {
      const etag = (await call("GET", `/document/${t.docId}`, { token: t.owner.token })).headers.get("etag")!;
      const updated = await call("PATCH", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { name: "First" },
      });
      expect(updated.status).toBe(200);
      const fresh = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(updated.headers.get("etag")).toBe(fresh.headers.get("etag"));
      expect(updated.headers.get("etag")).not.toBe(etag);

      const stale = await call("PATCH", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { name: "Lost update", parentId: null },
      });
      expectError(stale, 412, "PreconditionFailedError");
      expect(trips(stale.headers)).toBe(1);
      const unchanged = await ok("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(unchanged.data).toMatchObject({ name: "First", parentId: t.folderId });
    });

    it("If-Match on a document the caller cannot see is 404, not 412", async () => {
      const res = await call("PATCH", `/document/${t.docId}`, {
        token: t.outsider.token,
        headers: { "if-match": '"0"' },
        body: { name: "x" },
      });
      expectError(res, 404, "NotFoundError");
    });
  });
});
