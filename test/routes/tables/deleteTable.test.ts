/** deleteTable: DELETE /table/{tableId} (src/routes/tables/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant, expectError } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";

/**
 * The table routes on the request path (issue 9, docs/api-guide.md › HTTP semantics: retries, caching, replicas) and issue 14's computed cells: strong ETags with 304
 * on table GET, E11, E16 and E15; If-Match with 412 and nothing changed on the writes of those records; the round
 * trips of E1, E11, E15, E16 and E19 asserted one by one; and row creation (single, bulk) and cell upserts
 * answering with the formula cells computed in that same request.
 */
const STALE = '"0000000000000000000000000000dead"';

describe("table routes on the request path", () => {
  let t: Tenant;
  let tok: string;
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;

  beforeAll(async () => {
    t = await seedTenant();
    tok = t.owner.token;
    const table = await makeTable(tok, t.projectId, "Orders");
    tableId = table.tableId;
    nameCol = table.nameColumnId;
    qty = (await addColumn(tok, tableId, "Qty", { type: "number" }))._id;
    price = (await addColumn(tok, tableId, "Price", { type: "number" }))._id;
    total = (await addColumn(tok, tableId, "Total", { type: "formula" }))._id;
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: tok,
      body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
    });
    await addRow(tok, tableId, { [nameCol]: "Pens", [qty]: 2, [price]: 3 });
  });

  describe("If-Match: 412 and nothing changed, or the write with a current tag", () => {
    it("PATCH and DELETE table", async () => {
      const { tableId: id } = await makeTable(tok, t.projectId, "Guarded");
      const get = await call("GET", `/table/${id}`, { token: tok });
      const stale = await call("PATCH", `/table/${id}`, {
        token: tok,
        body: { name: "Changed" },
        headers: { "if-match": STALE },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.error).toBe("PreconditionFailedError");
      const del = await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": STALE } });
      expect(del.status).toBe(412);
      const unchanged = await call("GET", `/table/${id}`, { token: tok });
      expect(unchanged.body.data.name).toBe("Guarded");
      expect(unchanged.headers.get("etag")).toBe(get.headers.get("etag"));

      const patched = await call("PATCH", `/table/${id}`, {
        token: tok,
        body: { name: "Changed" },
        headers: { "if-match": get.headers.get("etag")! },
      });
      expect(patched.status).toBe(200);
      // The write answers with the new ETag, which is the GET's.
      const now = await call("GET", `/table/${id}`, { token: tok });
      expect(patched.headers.get("etag")).toBe(now.headers.get("etag"));
      // The old tag no longer matches.
      expect(
        (await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": get.headers.get("etag")! } }))
          .status,
      ).toBe(412);
      expect(
        (await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": now.headers.get("etag")! } }))
          .status,
      ).toBe(200);
      expect((await call("GET", `/table/${id}`, { token: tok })).status).toBe(404);
    });
  });
});

describe("tables", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  describe("tables", () => {
    it("creates a table with its identifier column and reads, renames and deletes it", async () => {
      const created = await ok("POST", "/table", {
        token: t.editor.token,
        body: { projectId: t.projectId, name: "Contracts", documentId: t.docId },
      });
      const table = created.data;
      expect(table).toMatchObject({
        name: "Contracts",
        projectId: t.projectId,
        workspaceId: t.workspaceId,
        documentId: t.docId,
        userId: t.editor.id,
        isDeleted: false,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      });
      expect(table.columns).toEqual([
        expect.objectContaining({
          name: "Name",
          slug: "name",
          isIdentifier: true,
          data: { type: "identifier" },
          tableId: table._id,
          projectId: t.projectId,
          workspaceId: t.workspaceId,
          originId: "",
          description: "",
          isDeleted: false,
        }),
      ]);

      const got = await ok("GET", `/table/${table._id}`, { token: t.viewer.token });
      const { columns: _cols, ...record } = table;
      expect(got.data).toEqual(record);

      const renamed = await ok("PATCH", `/table/${table._id}`, {
        token: t.owner.token,
        body: { ...got.data, name: "Agreements" },
      });
      expect(renamed.data.name).toBe("Agreements");
      expect(renamed.data.updatedAt).toBeGreaterThanOrEqual(table.updatedAt);

      await ok("DELETE", `/table/${table._id}`, { token: t.editor.token });
      expectError(await call("GET", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/table/columns/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("DELETE", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
    });
  });
});
