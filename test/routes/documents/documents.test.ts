import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { expectDocumentShape, notFoundShape } from "../../support/shapes";

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;
  let otherFolderId: string;
  let outsiderFolderId: string;

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

  describe("POST /document", () => {
    it("creates a root folder with every member of the Document record", async () => {
      const res = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Root folder", type: "FOLDER" },
      });
      const d = res.data;
      expectDocumentShape(d);
      expect(d).toEqual({
        _id: expect.any(String),
        parentId: null,
        projectId: t.projectId,
        userId: t.owner.id,
        workspaceId: t.workspaceId,
        name: "Root folder",
        type: "FOLDER",
        createdAt: expect.any(Number),
        updatedAt: d.createdAt,
        description: "",
        reference: "",
        order: expect.any(Number),
        isPublished: false,
        publishedSettings: null,
        external: null,
        icon: null,
        emoji: null,
        collaborators: [{ userId: t.owner.id, role: "owner" }],
        isDeleted: false,
        commentCount: 0,
        openCommentCount: 0,
      });
      const read = await e10(d._id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: d });
    });

    it("creates a document inside a folder with all optional members", async () => {
      const body = {
        parentId: t.folderId,
        name: "Full",
        type: "DOCUMENT",
        description: "About",
        reference: "REF-9",
        order: 42,
        icon: { name: "doc", color: "blue" },
        emoji: { unified: "1f4dd", emojiStyle: "native" },
      };
      const d = await create(body, t.editor.token);
      expectDocumentShape(d);
      expect(d).toMatchObject({
        ...body,
        userId: t.editor.id,
        collaborators: [{ userId: t.editor.id, role: "owner" }],
      });
      expect((await e10(d._id, t.viewer.token)).body.data).toEqual(d);
    });

    it("puts a new document after its siblings when no order is given", async () => {
      const folder = await create({ name: "Ordered", type: "FOLDER" });
      const a = await create({ parentId: folder._id, name: "a", type: "DOCUMENT" });
      const b = await create({ parentId: folder._id, name: "b", type: "DOCUMENT" });
      const c = await create({ parentId: folder._id, name: "c", type: "DOCUMENT", order: 10 });
      const d = await create({ parentId: folder._id, name: "d", type: "DOCUMENT" });
      expect([a.order, b.order, c.order, d.order]).toEqual([0, 1, 10, 11]);
    });

    it("a parent must be a FOLDER of the same project (400)", async () => {
      const notFolder = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: t.docId, name: "x", type: "DOCUMENT" },
      });
      expectError(notFolder, 400, "ValidationError");
      expect(notFolder.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
      const otherProject = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: otherFolderId, name: "x", type: "DOCUMENT" },
      });
      expectError(otherProject, 400, "ValidationError");
      expect(otherProject.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
    });

    it("a missing, deleted or unreadable parent is 404", async () => {
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: "no-such-folder", name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: outsiderFolderId, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      const doomed = await create({ name: "Doomed", type: "FOLDER" });
      await ok("DELETE", `/document/${doomed._id}`, { token: t.owner.token });
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: doomed._id, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
    });

    it("a viewer gets 403 at the root and in a folder; an outsider 404; an unknown project 404", async () => {
      expectError(
        await call("POST", "/document", {
          token: t.viewer.token,
          body: { projectId: t.projectId, name: "x", type: "DOCUMENT" },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.viewer.token,
          body: { projectId: t.projectId, parentId: t.folderId, name: "x", type: "DOCUMENT" },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.outsider.token,
          body: { projectId: t.projectId, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: "no-such-project", name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
    });

    it("validates its body", async () => {
      const cases: Record<string, unknown>[] = [
        { name: "x", type: "EXTERNAL" },
        { name: "x", type: "folder" },
        { name: "x" },
        { type: "DOCUMENT" },
        { name: "x", type: "DOCUMENT", order: -1 },
        { name: "x", type: "DOCUMENT", order: 1.5 },
        { name: "x", type: "DOCUMENT", parentId: "bad id" },
      ];
      for (const body of cases) {
        expectError(
          await call("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } }),
          400,
          "ValidationError",
        );
      }
      const extra = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "x", type: "DOCUMENT", isPublishd: true },
      });
      expectError(extra, 400, "ValidationError");
      expect(extra.body.details.map((d: any) => d.path)).toEqual(["isPublishd"]);
    });
  });

  it("folders nest at most 64 deep, on create and on move (400)", async () => {
    const project = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Deep" } })
    ).data._id;
    let parentId: string | null = null;
    for (let level = 1; level <= 64; level++) {
      const folder: any = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: project, parentId, name: `L${level}`, type: "FOLDER" },
      });
      parentId = folder.data._id;
    }
    const tooDeep = await call("POST", "/document", {
      token: t.owner.token,
      body: { projectId: project, parentId, name: "L65", type: "DOCUMENT" },
    });
    expectError(tooDeep, 400, "ValidationError");
    expect(tooDeep.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
    // A folder with a child moved under level 63 would reach 65.
    const pair = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: project, name: "pair", type: "FOLDER" },
      })
    ).data._id;
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: project, parentId: pair, name: "child", type: "DOCUMENT" },
    });
    const list = (await ok("GET", `/document/all/${project}`, { token: t.owner.token })).data as Doc[];
    const level63 = list.find((d) => d.name === "L63")!._id;
    const level62 = list.find((d) => d.name === "L62")!._id;
    expectError(
      await call("PATCH", `/document/${pair}`, { token: t.owner.token, body: { parentId: level63 } }),
      400,
      "ValidationError",
    );
    await ok("PATCH", `/document/${pair}`, { token: t.owner.token, body: { parentId: level62 } });
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

    it("restoring a live document changes nothing; a missing one is 404; an outsider 404; a viewer 403", async () => {
      const live = await ok("POST", `/document/${t.docId}/restore`, { token: t.owner.token });
      expect(live.data).toMatchObject({ _id: t.docId, isDeleted: false, restoredDocuments: 0 });
      expectError(await call("POST", "/document/no-such-doc/restore", { token: t.owner.token }), 404, "NotFoundError");
      const gone = await create({ name: "Gone for good", type: "DOCUMENT" });
      await ok("DELETE", `/document/${gone._id}`, { token: t.owner.token });
      expectError(
        await call("POST", `/document/${gone._id}/restore`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", `/document/${gone._id}/restore`, { token: t.viewer.token }),
        403,
        "ForbiddenError",
      );
      expect((await e10(gone._id)).status).toBe(404);
    });

    it("a viewer cannot delete (403); an outsider gets 404", async () => {
      expectError(await call("DELETE", `/document/${t.docId}`, { token: t.viewer.token }), 403, "ForbiddenError");
      expectError(await call("DELETE", `/document/${t.docId}`, { token: t.outsider.token }), 404, "NotFoundError");
      expect((await e10(t.docId)).status).toBe(200);
    });
  });

  describe("publish", () => {
    it("POST /document/{id}/publish sets isPublished and publishedSettings; DELETE clears them", async () => {
      const d = await create({ parentId: t.folderId, name: "Public", type: "DOCUMENT" });
      const pub = await ok("POST", `/document/${d._id}/publish`, {
        token: t.editor.token,
        body: { styling: { theme: "dark", size: 3 }, domainSlug: "handbook" },
      });
      expectDocumentShape(pub.data);
      expect(pub.data.isPublished).toBe(true);
      expect(pub.data.publishedSettings).toEqual({
        publishedById: t.editor.id,
        publishedAt: expect.any(Number),
        styling: { theme: "dark", size: 3 },
        domainSlug: "handbook",
      });
      expect((await e10(d._id, t.viewer.token)).body.data).toEqual(pub.data);

      const unpub = await ok("DELETE", `/document/${d._id}/publish`, { token: t.owner.token });
      expect(unpub.data).toMatchObject({ isPublished: false, publishedSettings: null });
      expect((await e10(d._id)).body.data).toMatchObject({ isPublished: false, publishedSettings: null });
    });

    it('defaults styling to {} and domainSlug to ""', async () => {
      const d = await create({ name: "Plain public", type: "DOCUMENT" });
      const pub = await ok("POST", `/document/${d._id}/publish`, { token: t.owner.token, body: {} });
      expect(pub.data.publishedSettings).toMatchObject({ styling: {}, domainSlug: "", publishedById: t.owner.id });
    });

    it("validates the body; a viewer is 403; an outsider 404", async () => {
      expectError(
        await call("POST", `/document/${t.docId}/publish`, { token: t.owner.token, body: { password: "x" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/document/${t.docId}/publish`, { token: t.owner.token, body: { styling: "dark" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/document/${t.docId}/publish`, { token: t.viewer.token, body: {} }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("DELETE", `/document/${t.docId}/publish`, { token: t.viewer.token }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", `/document/${t.docId}/publish`, { token: t.outsider.token, body: {} }),
        404,
        "NotFoundError",
      );
      expect((await e10(t.docId)).body.data.isPublished).toBe(false);
    });
  });

  it("a document created by a guest editor lists both grants in collaborators", async () => {
    const guest = await registerUser("Guest editor");
    const folder = await create({ name: "Guest folder", type: "FOLDER" });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: folder._id, role: "editor" },
    });
    const folderRead = await e10(folder._id, guest.token);
    expect(folderRead.body.data.collaborators).toEqual([
      { userId: t.owner.id, role: "owner" },
      { userId: guest.id, role: "editor" },
    ]);
    const d = await create({ parentId: folder._id, name: "By guest", type: "DOCUMENT" }, guest.token);
    expect(d.collaborators).toEqual([{ userId: guest.id, role: "owner" }]);
    expect((await e10(d._id, guest.token)).body.data).toEqual(d);
  });
});
