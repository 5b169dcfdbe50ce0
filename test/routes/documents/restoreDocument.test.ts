/** restoreDocument: POST /document/{documentId}/restore (src/routes/documents/restore.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

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

  describe("DELETE and restore", () => {
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
  });
});
