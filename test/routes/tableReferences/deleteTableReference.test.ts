/** deleteTableReference: DELETE /table/reference/{referenceId} (src/routes/tableReferences/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";

describe("deleteTableReference", () => {
  let t: Tenant;
  let id: string;
  beforeAll(async () => {
    t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId, "Deleted");
    const body = {
      documentId: t.docId,
      tableId: table.tableId,
      columnId: table.nameColumnId,
      relatedRowId: null,
      type: "global",
    };
    id = (await ok("POST", "/table/reference", { token: t.owner.token, body })).data._id;
  });

  it("is 403 for a viewer and 404 for an outsider, and the reference stays", async () => {
    expectError(await call("DELETE", `/table/reference/${id}`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/table/reference/${id}`, { token: t.outsider.token }), 404, "NotFoundError");
    await ok("GET", `/table/reference/${id}`, { token: t.owner.token });
  });

  it("an editor deletes it: gone from reads and lists, and a second DELETE is 404", async () => {
    expect(await ok("DELETE", `/table/reference/${id}`, { token: t.editor.token })).toEqual({
      data: { success: true },
    });
    expectError(await call("GET", `/table/reference/${id}`, { token: t.owner.token }), 404, "NotFoundError");
    const list = await ok("GET", `/document/${t.docId}/table-references`, { token: t.owner.token });
    expect(list.data.map((r: any) => r._id)).not.toContain(id);
    expectError(await call("DELETE", `/table/reference/${id}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
