/** updateDocumentSettings: PUT /document/{documentId}/settings (src/routes/content/updateSettings.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("document settings", () => {
  it("reads empty strings until set, then merges partial updates", async () => {
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Settings", type: "DOCUMENT" },
    });
    const id = doc.data._id;
    expect(await ok("GET", `/document/${id}/settings`, { token: t.viewer.token })).toEqual({
      data: { listTemplateId: "", importedTermId: "" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.editor.token, body: { listTemplateId: "tpl-1" } }),
    ).toEqual({
      data: { listTemplateId: "tpl-1", importedTermId: "" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.owner.token, body: { importedTermId: "term-9" } }),
    ).toEqual({
      data: { listTemplateId: "tpl-1", importedTermId: "term-9" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.owner.token, body: { listTemplateId: null } }),
    ).toEqual({
      data: { listTemplateId: "", importedTermId: "term-9" },
    });
    expect(await ok("GET", `/document/${id}/settings`, { token: t.owner.token })).toEqual({
      data: { listTemplateId: "", importedTermId: "term-9" },
    });
  });

  it("answers errors", async () => {
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.owner.token, body: { other: "x" } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.owner.token, body: { listTemplateId: 5 } }),
      400,
      "ValidationError",
    );
    expectError(await call("GET", "/document/missing/settings", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/document/${t.docId}/settings`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.viewer.token, body: { listTemplateId: "x" } }),
      403,
      "ForbiddenError",
    );
  });
});
