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

  it("the tree listing shows only the granted subtree", async () => {
    const list = await ok("GET", `/document/all/${t.projectId}`, { token: reader.token });
    expect(list.data.map((d: any) => d._id).sort()).toEqual([F, a, S, b].sort());
  });

  it("a document created later below the folder is covered too", async () => {
    const late = await mk({ parentId: S, name: "late", type: "DOCUMENT" });
    expect((await e10(late, reader)).status).toBe(200);
    expect(await e20(late, reader)).toBe(true);
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
