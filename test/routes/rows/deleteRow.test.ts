/** deleteRow: DELETE /table/row/{rowId} (src/routes/rows/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, allRows, makeTypedTable, addColumn, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";

describe("rows", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  /** A table with one column of every writable type, plus a formula and a oneMany column. */
  const typedTable = (token = t.owner.token) => makeTypedTable(token, t.projectId);

  describe("rows and cells", () => {
    it("soft-deletes rows and tables: their rows and cells vanish", async () => {
      const { tableId, col } = await typedTable();
      const a = await addRow(t.owner.token, tableId, { [col.text!]: "a" });
      const b = await addRow(t.owner.token, tableId, { [col.text!]: "b" });
      expect(await ok("DELETE", `/table/row/${a.row._id}`, { token: t.editor.token })).toEqual({
        data: { success: true },
      });
      expectError(await call("GET", `/table/row/${a.row._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/table/cell/${a.cells[0]._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("DELETE", `/table/row/${a.row._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(
        await call("PUT", `/table/row/${a.row._id}/cell/${col.text}`, { token: t.owner.token, body: { data: "x" } }),
        404,
        "NotFoundError",
      );
      expect((await allRows(t.owner.token, tableId)).map((r) => r._id)).toEqual([b.row._id]);

      await ok("DELETE", `/table/${tableId}`, { token: t.owner.token });
      expectError(await call("GET", `/table/row/${b.row._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/table/cell/${b.cells[0]._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/table/${tableId}/rows`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(
        await call("POST", `/table/${tableId}/row`, { token: t.owner.token, body: {} }),
        404,
        "NotFoundError",
      );
    });
  });
});

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
    it("DELETE row", async () => {
      const row = (await addRow(tok, tableId, { [nameCol]: "Doomed" })).row;
      const get = await call("GET", `/table/row/${row._id}`, { token: tok });
      expect(
        (await call("DELETE", `/table/row/${row._id}`, { token: tok, headers: { "if-match": STALE } })).status,
      ).toBe(412);
      const still = await call("GET", `/table/row/${row._id}`, { token: tok });
      expect(still.status).toBe(200);
      expect(still.headers.get("etag")).toBe(get.headers.get("etag"));
      expect(
        (
          await call("DELETE", `/table/row/${row._id}`, {
            token: tok,
            headers: { "if-match": get.headers.get("etag")! },
          })
        ).status,
      ).toBe(200);
      expect((await call("GET", `/table/row/${row._id}`, { token: tok })).status).toBe(404);
    });
  });
});
