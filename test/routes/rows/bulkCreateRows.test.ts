/** bulkCreateRows: POST /table/{tableId}/rows (src/routes/rows/bulkCreate.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant, call, expectError } from "../../support/harness";
import { addColumn, allRows, bulkRows, makeTable, makeTypedTable, addRow } from "../../support/tableHarness";
import { col, fn, lit, op, text } from "../../support/formula/expr";
import { shardD1 } from "../../support/shards";

/** The row and cell routes recompute formula cells in the same request, through the table's coordinator. */
describe("formula recalculation through the row and cell routes", () => {
  let t: Tenant;
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;
  let label: string;

  beforeAll(async () => {
    t = await seedTenant();
    const table = await makeTable(t.owner.token, t.projectId, "Orders");
    tableId = table.tableId;
    nameCol = table.nameColumnId;
    qty = (await addColumn(t.owner.token, tableId, "Qty", { type: "number" }))._id;
    price = (await addColumn(t.owner.token, tableId, "Price", { type: "number" }))._id;
    total = (await addColumn(t.owner.token, tableId, "Total", { type: "formula" }))._id;
    label = (await addColumn(t.owner.token, tableId, "Label", { type: "formula" }))._id;
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: t.owner.token,
      body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
    });
    // A formula over a formula: recomputed after Total, in dependency order.
    await ok("POST", `/table/column/${label}/computed/apply`, {
      token: t.owner.token,
      body: {
        description: [text("Name & total")],
        expression: op("&", op("&", col(nameCol), lit(": ")), fn("ROUND", col(total), lit(1))),
      },
    });
  });

  it("computes bulk-created rows and stores spreadsheet errors as values", async () => {
    const created = await bulkRows(t.editor.token, tableId, [
      { [nameCol]: "A", [qty]: 1, [price]: 2 },
      { [nameCol]: "B", [qty]: 4 },
    ]);
    const rows = new Map((await allRows(t.owner.token, tableId)).map((r) => [r._id, r]));
    expect(rows.get(created[0]._id).cells[total]).toBe(2);
    expect(rows.get(created[1]._id).cells[total]).toBe(0);
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: t.owner.token,
      body: { description: [text("Qty / Price")], expression: op("/", col(qty), col(price)) },
    });
    const after = new Map((await allRows(t.owner.token, tableId)).map((r) => [r._id, r]));
    expect(after.get(created[1]._id).cells[total]).toEqual({ error: "#DIV/0!" });
    expect(after.get(created[0]._id).cells[total]).toBe(0.5);
  });
});

describe("rows", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  /** A table with one column of every writable type, plus a formula and a oneMany column. */
  const typedTable = (token = t.owner.token) => makeTypedTable(token, t.projectId);

  describe("bulk rows", () => {
    it("creates rows in request order and documents what it stored", async () => {
      const { tableId, col } = await typedTable();
      const created = await bulkRows(t.editor.token, tableId, [
        { [col.identifier!]: "one", [col.number!]: 1 },
        {},
        { [col.checkbox!]: true, [col.text!]: null },
      ]);
      expect(created).toHaveLength(3);
      expect(created.map((r) => r.cells)).toEqual([
        { [col.identifier!]: "one", [col.number!]: 1 },
        {},
        { [col.checkbox!]: true },
      ]);
      expect(created[0]).toMatchObject({
        tableId,
        projectId: t.projectId,
        workspaceId: t.workspaceId,
        ownerId: t.editor.id,
        originId: "",
        isDeleted: false,
      });
      const listed = await allRows(t.owner.token, tableId);
      expect(listed.map((r) => r._id)).toEqual(created.map((r) => r._id));
      expect(listed[0].cells[col.number!]).toBe(1);
      expect(listed[2].cells[col.checkbox!]).toBe(true);
      expect(listed[2].cells[col.text!]).toBeNull();
    });

    it("rejects 0 or 1001 rows and unknown members", async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, "Bounds");
      expectError(
        await call("POST", `/table/${tableId}/rows`, { token: t.owner.token, body: { rows: [] } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/rows`, {
          token: t.owner.token,
          body: { rows: Array.from({ length: 1001 }, () => ({})) },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/rows`, { token: t.owner.token, body: { rows: [{ cells: {}, x: 1 }] } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/rows`, { token: t.owner.token, body: {} }),
        400,
        "ValidationError",
      );
    });

    it("writes nothing when the last of 1000 rows is invalid", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "AllOrNothing");
      const num = await addColumn(t.owner.token, tableId, "N", { type: "number" });
      const rows = Array.from({ length: 1000 }, (_, i) => ({ cells: { [nameColumnId]: `row ${i}`, [num._id]: i } }));
      rows[999]!.cells[num._id] = "not a number" as unknown as number;
      const res = await call("POST", `/table/${tableId}/rows`, { token: t.owner.token, body: { rows } });
      expectError(res, 400, "ValidationError");
      expect(res.body.details).toEqual([{ path: `rows.999.cells.${num._id}`, message: expect.any(String) }]);
      const computed = await addColumn(t.owner.token, tableId, "F", { type: "formula" });
      const res409 = await call("POST", `/table/${tableId}/rows`, {
        token: t.owner.token,
        body: { rows: [...rows.slice(0, 999), { cells: { [computed._id]: 1 } }] },
      });
      expectError(res409, 409, "ConflictError");
      expect(await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token })).toEqual({
        data: [],
        nextCursor: null,
      });
      const counts = await shardD1(tableId)
        .prepare(
          "SELECT (SELECT COUNT(*) FROM rows WHERE table_id = ?1) AS r, (SELECT COUNT(*) FROM cells WHERE table_id = ?1) AS c",
        )
        .bind(tableId)
        .first();
      expect(counts).toEqual({ r: 0, c: 0 });
    });

    it("writes nothing when the database refuses part of the batch", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "AtomicDb");
      const rows = Array.from({ length: 1000 }, (_, i) => ({ cells: { [nameColumnId]: `row ${i}` } }));
      // A trigger standing in for any failure inside D1 on the last row's cell.
      await shardD1(tableId)
        .prepare(
          `CREATE TRIGGER fail_last_cell BEFORE INSERT ON cells WHEN NEW.table_id = '${tableId}' AND NEW.data = '"row 999"' BEGIN SELECT RAISE(ABORT, 'boom'); END`,
        )
        .run();
      try {
        const res = await call("POST", `/table/${tableId}/rows`, { token: t.owner.token, body: { rows } });
        expect(res.status).toBe(500);
      } finally {
        await shardD1(tableId).prepare("DROP TRIGGER fail_last_cell").run();
      }
      const counts = await shardD1(tableId)
        .prepare(
          "SELECT (SELECT COUNT(*) FROM rows WHERE table_id = ?1) AS r, (SELECT COUNT(*) FROM cells WHERE table_id = ?1) AS c",
        )
        .bind(tableId)
        .first();
      expect(counts).toEqual({ r: 0, c: 0 });
    });

    it("splits large cell payloads over several statements and keeps them whole", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Large");
      const text = await addColumn(t.owner.token, tableId, "Body", { type: "text" });
      const big = "é".repeat(50_000);
      const created = await bulkRows(
        t.owner.token,
        tableId,
        Array.from({ length: 40 }, (_, i) => ({ [nameColumnId]: `r${i}`, [text._id]: `${i}:${big}` })),
      );
      expect(created).toHaveLength(40);
      const listed = await allRows(t.owner.token, tableId, 100);
      expect(listed.map((r) => r.cells[text._id])).toEqual(Array.from({ length: 40 }, (_, i) => `${i}:${big}`));
    });
  });
});

/**
 * The table routes on the request path (issue 9, docs/api-guide.md › HTTP semantics: retries, caching, replicas) and issue 14's computed cells: strong ETags with 304
 * on table GET, E11, E16 and E15; If-Match with 412 and nothing changed on the writes of those records; the round
 * trips of E1, E11, E15, E16 and E19 asserted one by one; and row creation (single, bulk) and cell upserts
 * answering with the formula cells computed in that same request.
 */
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

  describe("issue 14: row writes answer with the formula cells computed in the request", () => {
    it("POST rows: each row's cells carry its formula values", async () => {
      const res = await ok("POST", `/table/${tableId}/rows`, {
        token: tok,
        body: { rows: [{ cells: { [qty]: 2, [price]: 5 } }, { cells: { [qty]: 3 } }, { cells: {} }] },
      });
      expect(res.data.rows.map((r: any) => r.cells[total])).toEqual([10, 0, 0]);
      expect(res.data.rows[0].cells[qty]).toBe(2);
    });
  });
});
