/** publishDocument: POST /document/{documentId}/publish (src/routes/documents/publish.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { expectDocumentShape } from "../../support/shapes";

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
});
