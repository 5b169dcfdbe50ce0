import { describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant } from "../support/harness";
import { addColumn, addRow, makeTable } from "../support/tableHarness";

/** Ways one tenant's data could leak to another, or outlive the access that created it. */
describe("tenant isolation", () => {
  it("refuses table references to rows outside the referencing project, so E5 cannot export them", async () => {
    const [a, b] = await Promise.all([seedTenant(), seedTenant()]);
    const secretTable = await makeTable(a.owner.token, a.projectId, "Secret");
    const secretRow = (await addRow(a.owner.token, secretTable.tableId, { [secretTable.nameColumnId]: "TOP SECRET" }))
      .row._id;
    const own = await makeTable(b.owner.token, b.projectId, "Own");
    for (const sneak of [{ rowId: secretRow }, { oneToManyInstanceIds: [secretRow] }]) {
      const res = await call("POST", "/table/reference", {
        token: b.owner.token,
        body: {
          documentId: b.docId,
          tableId: own.tableId,
          columnId: own.nameColumnId,
          relatedRowId: null,
          type: "global",
          ...sneak,
        },
      });
      expectError(res, 400, "ValidationError");
    }
    const exported = await ok("POST", "/export/get-documents-data", {
      token: b.owner.token,
      body: { projectId: b.projectId, documentIds: [b.docId] },
    });
    expect(JSON.stringify(exported)).not.toContain("TOP SECRET");
  });

  it("drops references to a soft-deleted table from E1, listings and E5", async () => {
    const t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId, "Gone");
    const price = (await addColumn(t.owner.token, table.tableId, "Price", { type: "number" }))._id;
    const row = (await addRow(t.owner.token, table.tableId, { [price]: 7 })).row._id;
    const ref = await ok("POST", "/table/reference", {
      token: t.owner.token,
      body: { documentId: t.docId, tableId: table.tableId, columnId: price, relatedRowId: row, type: "reference" },
    });
    await ok("DELETE", `/table/${table.tableId}`, { token: t.owner.token });
    expectError(await call("GET", `/table/reference/${ref.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expect((await ok("GET", `/document/${t.docId}/table-references`, { token: t.owner.token })).data).toEqual([]);
    const exported = await ok("POST", "/export/get-documents-data", {
      token: t.owner.token,
      body: { projectId: t.projectId, documentIds: [t.docId] },
    });
    expect(exported.exportData[0].references.tables).toEqual({ referenceRow: [], references: [] });
  });

  it("ends a removed workspace member's document grants in that workspace", async () => {
    const t = await seedTenant();
    const created = await ok("POST", "/document", {
      token: t.editor.token,
      body: { projectId: t.projectId, name: "Mine", type: "DOCUMENT" },
    });
    await ok("DELETE", `/workspace/${t.workspaceId}/collaborator/${t.editor.id}`, { token: t.owner.token });
    const res = await call("GET", `/document/${created.data._id}`, { token: t.editor.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ data: { _id: created.data._id, isNotFound: true } });
    expectError(await call("GET", `/project/${t.projectId}`, { token: t.editor.token }), 404, "NotFoundError");
  });

  it("keeps a document-only guest's grant when a 'remove collaborator' call finds no such collaborator", async () => {
    const t = await seedTenant();
    const guest = await registerUser("Guest");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: t.docId },
    });
    expectError(
      await call("DELETE", `/workspace/${t.workspaceId}/collaborator/${guest.id}`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    expect((await ok("GET", `/access/document/${t.docId}`, { token: guest.token })).data).toBe(true);
  });

  it("never lets an expiring token mint a token that outlives it", async () => {
    const u = await registerUser("Expiring");
    const expiresAt = Date.now() + 60_000;
    const short = await ok("POST", "/token", { token: u.token, body: { name: "short", expiresAt } });
    const child = await ok("POST", "/token", { token: short.data.token, body: { name: "child" } });
    expect(child.data.expiresAt).toBe(expiresAt);
    const longer = await ok("POST", "/token", {
      token: short.data.token,
      body: { name: "longer", expiresAt: expiresAt + 3_600_000 },
    });
    expect(longer.data.expiresAt).toBe(expiresAt);
  });
});

describe("input bounds", () => {
  it("applies the JSON body limit whatever the case of the content type", async () => {
    const u = await registerUser();
    const res = await call("POST", "/organization", {
      token: u.token,
      raw: JSON.stringify({ name: "x".repeat(10 * 1024 * 1024 + 10) }),
      headers: { "content-type": "Application/JSON" },
    });
    expectError(res, 413, "PayloadTooLargeError");
  });

  it("caps free-form column data and publish styling with 400", async () => {
    const t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId);
    const huge = "y".repeat(300 * 1024);
    expectError(
      await call("POST", `/table/${table.tableId}/column`, {
        token: t.owner.token,
        body: { name: "Big", data: { type: "text", note: huge } },
      }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", `/document/${t.docId}/publish`, { token: t.owner.token, body: { styling: { css: huge } } }),
      400,
      "ValidationError",
    );
  });
});
