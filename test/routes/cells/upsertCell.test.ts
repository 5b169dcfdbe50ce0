/** upsertCell: PUT /table/row/{rowId}/cell/{columnId} (src/routes/cells/upsert.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant, call } from "../../support/harness";
import { addRow, makeTypedTable, addColumn, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";

describe("upsert", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  /** PUT /table/row/{rowId}/cell/{columnId} and GET /table/cell/{id}; their guards are with the rows' (test/routes/rows/createRow.test.ts). */
  describe("cells", () => {
    it("upserts one cell, clears it with null, and touches the row", async () => {
      const { tableId, col } = await makeTypedTable(t.owner.token, t.projectId);
      const { row } = await addRow(t.owner.token, tableId);
      const first = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
        token: t.editor.token,
        body: { data: ["red"] },
      });
      expect(first.data).toMatchObject({
        rowId: row._id,
        columnId: col.multiSelect,
        tableId,
        data: ["red"],
        isIdentifier: false,
      });
      const second = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
        token: t.editor.token,
        body: { ...first.data, data: ["blue", "red"] },
      });
      expect(second.data._id).toBe(first.data._id);
      expect(second.data.data).toEqual(["blue", "red"]);
      expect(second.data.createdAt).toBe(first.data.createdAt);
      const ident = await ok("PUT", `/table/row/${row._id}/cell/${col.identifier}`, {
        token: t.editor.token,
        body: { data: "Named" },
      });
      expect(ident.data.isIdentifier).toBe(true);
      const cleared = await ok("PUT", `/table/row/${row._id}/cell/${col.multiSelect}`, {
        token: t.editor.token,
        body: { data: null },
      });
      expect(cleared.data.data).toBeNull();
      expect((await ok("GET", `/table/cell/${first.data._id}`, { token: t.owner.token })).data.data).toBeNull();
      const got = await ok("GET", `/table/row/${row._id}`, { token: t.owner.token });
      expect(got.data.updatedAt).toBeGreaterThanOrEqual(row.updatedAt);
      const listed = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
      expect(listed.data[0].cells[col.identifier!]).toBe("Named");
      expect(listed.data[0].cells[col.multiSelect!]).toBeNull();
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
    it("PUT cell", async () => {
      const created = await addRow(tok, tableId, { [nameCol]: "Cups", [qty]: 1, [price]: 4 });
      const cell = created.cells.find((c: any) => c.columnId === qty);
      const get = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      const stale = await call("PUT", `/table/row/${created.row._id}/cell/${qty}`, {
        token: tok,
        body: { data: 9 },
        headers: { "if-match": STALE },
      });
      expect(stale.status).toBe(412);
      const unchanged = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      expect(unchanged.body.data.data).toBe(1);
      expect(unchanged.headers.get("etag")).toBe(get.headers.get("etag"));
      // No cell yet: nothing to match.
      expect(
        (
          await call("PUT", `/table/row/${created.row._id}/cell/${price}`, {
            token: tok,
            body: { data: 1 },
            headers: { "if-match": STALE },
          })
        ).status,
      ).toBe(412);

      const put = await call("PUT", `/table/row/${created.row._id}/cell/${qty}`, {
        token: tok,
        body: { data: 9 },
        headers: { "if-match": get.headers.get("etag")! },
      });
      expect(put.status).toBe(200);
      const now = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      expect(now.body.data.data).toBe(9);
      expect(put.headers.get("etag")).toBe(now.headers.get("etag"));
    });
  });

  describe("issue 14: row writes answer with the formula cells computed in the request", () => {
    it("PUT cell: the row's formula cells beside the cell", async () => {
      const created = await ok("POST", `/table/${tableId}/row`, {
        token: tok,
        body: { cells: { [qty]: 1, [price]: 7 } },
      });
      const res = await ok("PUT", `/table/row/${created.data.row._id}/cell/${qty}`, { token: tok, body: { data: 6 } });
      expect(res.data).toMatchObject({ columnId: qty, data: 6 });
      expect(res.formulaCells).toEqual({ [total]: 42 });
    });
  });
});
