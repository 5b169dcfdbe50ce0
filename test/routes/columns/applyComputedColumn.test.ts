/** applyComputedColumn: POST /table/column/{columnId}/computed/apply (src/routes/columns/computedApply.ts) — its happy path, errors and request-path checks. */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { recomputeRowsThroughCoordinator } from "../../../src/services/formula/coordinator";
import { readOptions, readRowPage, readRows } from "../../../src/services/formula/rowPages";
import { createDb } from "../../../src/db/client";
import { serviceContext, workerActor } from "../../../src/services/context";
import { chip, col, deepTree, fn, lit, op, text } from "../../support/formula/expr";
import { shardD1 } from "../../support/shards";
import {
  cellValues,
  columnRecord,
  seedColumn,
  seedRows,
  seedTable,
  setCell,
  softDelete,
  type SeededTable,
} from "../../support/formula/seed";
import { addColumn, allRows } from "../../support/tableHarness";
import { textFormulaOrdersFixture } from "../../support/orders";

/**
 * E3 POST /table/column/{columnId}/computed/apply through the real Worker, Durable Object and D1.
 */
describe("computedApply", () => {
  const apply = (
    t: Tenant,
    columnId: string,
    expression: unknown,
    description: unknown[] = [text("formula")],
    token = t.owner.token,
  ) => call("POST", `/table/column/${columnId}/computed/apply`, { token, body: { description, expression } });

  const utc = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);

  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  async function priceTable() {
    const table = await seedTable(t, [
      { name: "Price", type: "number" },
      { name: "Qty", type: "number" },
      { name: "Note", type: "text" },
      { name: "Due", type: "date" },
      {
        name: "Status",
        type: "select",
        data: {
          selectItems: [
            { id: "s1", label: "Open", color: "green" },
            { id: "s2", label: "Closed", color: "red" },
          ],
        },
      },
      { name: "Total", type: "text" },
    ]);
    const rows = await seedRows(table, [
      { Name: "a", Price: 10, Qty: 3, Note: "x", Due: utc(2024, 1, 31), Status: "s1" },
      { Name: "b", Price: 2.5, Qty: 4, Note: "y", Due: utc(2024, 2, 29), Status: "s2" },
      { Name: "c", Price: 7, Qty: 0 },
      { Name: "d" },
    ]);
    return { table, rows };
  }

  describe("E3 apply", () => {
    it("makes the column a formula column, persists the tree and computes every row", async () => {
      const { table, rows } = await priceTable();
      const expression = op("*", col(table.col.Price!), col(table.col.Qty!));
      const description = [chip("Price", table.col.Price!), text(" * "), chip("Qty", table.col.Qty!)];
      const res = await apply(t, table.col.Total!, expression, description);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ updatedRows: 4 });

      const record = await columnRecord(table.col.Total!);
      expect(record!.data.type).toBe("formula");
      expect(record!.formula).toEqual({ expression, description });

      const values = await cellValues(table.col.Total!);
      expect(rows.map((r) => values.get(r))).toEqual([30, 10, 0, 0]);
    });

    it("stores evaluation errors as { error } values", async () => {
      const { table, rows } = await priceTable();
      const res = await apply(t, table.col.Total!, op("/", col(table.col.Price!), col(table.col.Qty!)));
      expect(res.body).toEqual({ updatedRows: 4 });
      const values = await cellValues(table.col.Total!);
      expect(rows.map((r) => values.get(r))).toEqual([10 / 3, 0.625, { error: "#DIV/0!" }, { error: "#DIV/0!" }]);

      await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("+", col(table.col.Note!), lit(1)) },
      });
      const again = await cellValues(table.col.Total!);
      expect(rows.map((r) => again.get(r))).toEqual([{ error: "#VALUE!" }, { error: "#VALUE!" }, 1, 1]);
    });

    it("reads dates, select labels and text like a spreadsheet", async () => {
      const { table, rows } = await priceTable();
      const expression = fn(
        "IF",
        op("=", col(table.col.Status!), lit("open")),
        op("&", fn("UPPER", col(table.col.Name!)), op("&", lit(" due "), fn("YEAR", col(table.col.Due!)))),
        fn("EDATE", col(table.col.Due!), lit(1)),
      );
      await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression },
      });
      const values = await cellValues(table.col.Total!);
      // Row b is Closed: EDATE(2024-02-29, 1) = 2024-03-29 as ms. Rows c and d have no date: EDATE(blank) fails.
      expect(values.get(rows[0]!)).toBe("A due 2024");
      expect(values.get(rows[1]!)).toBe(utc(2024, 3, 29));
    });

    it("reports updatedRows 0 for a second identical apply, and only changed rows after an edit", async () => {
      const { table, rows } = await priceTable();
      const expression = op("+", col(table.col.Price!), lit(1));
      expect((await apply(t, table.col.Total!, expression)).body).toEqual({ updatedRows: 4 });
      expect((await apply(t, table.col.Total!, expression)).body).toEqual({ updatedRows: 0 });
      await setCell(table, rows[0]!, "Price", 100);
      expect((await apply(t, table.col.Total!, expression)).body).toEqual({ updatedRows: 1 });
      expect((await cellValues(table.col.Total!)).get(rows[0]!)).toBe(101);
    });

    it("skips deleted rows", async () => {
      const { table, rows } = await priceTable();
      await softDelete("rows", rows[1]!);
      expect((await apply(t, table.col.Total!, op("*", col(table.col.Price!), lit(2)))).body).toEqual({
        updatedRows: 3,
      });
      expect((await cellValues(table.col.Total!)).has(rows[1]!)).toBe(false);
    });

    it("recomputes formula columns that depend on the applied column, for every row, in dependency order", async () => {
      const { table, rows } = await priceTable();
      const double = await seedColumn(t, table, { name: "Double", type: "text" });
      const plusOne = await seedColumn(t, table, { name: "PlusOne", type: "text" });
      const label = await seedColumn(t, table, { name: "Label", type: "text" });
      // PlusOne = Double + 1 is applied before Double is a formula; Label reads both.
      await ok("POST", `/table/column/${plusOne}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("+", col(double), lit(1)) },
      });
      await ok("POST", `/table/column/${label}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("&", op("&", col(double), lit("/")), col(plusOne)) },
      });
      const res = await apply(t, double, op("*", col(table.col.Price!), lit(2)));
      expect(res.body).toEqual({ updatedRows: 4 });
      const [d, p, l] = await Promise.all([cellValues(double), cellValues(plusOne), cellValues(label)]);
      expect(rows.map((r) => d.get(r))).toEqual([20, 5, 14, 0]);
      expect(rows.map((r) => p.get(r))).toEqual([21, 6, 15, 1]);
      expect(rows.map((r) => l.get(r))).toEqual(["20/21", "5/6", "14/15", "0/1"]);
    });

    it("reads a date-valued formula column back as dates in the formulas that use it", async () => {
      const { table, rows } = await priceTable();
      const next = await seedColumn(t, table, { name: "Next", type: "text" });
      await ok("POST", `/table/column/${next}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("+", col(table.col.Due!), lit(1)) },
      });
      await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: fn("MONTH", col(next)) },
      });
      const [n, m] = await Promise.all([cellValues(next), cellValues(table.col.Total!)]);
      expect(n.get(rows[0]!)).toBe(utc(2024, 2, 1));
      expect(m.get(rows[0]!)).toBe(2);
      expect(m.get(rows[1]!)).toBe(3);
    });
  });

  describe("E3 errors", () => {
    it("400 for an unknown description kind, a malformed tree and unknown body members", async () => {
      const { table } = await priceTable();
      const id = table.col.Total!;
      expectError(await apply(t, id, lit(1), [{ kind: "image", text: "x" }]), 400, "ValidationError");
      expectError(await apply(t, id, { kind: "op", op: "**", args: [lit(1), lit(2)] }), 400, "ValidationError");
      expectError(await apply(t, id, { kind: "op", op: "+", args: [lit(1)] }), 400, "ValidationError");
      expectError(await apply(t, id, { kind: "call", fn: "SUM(", args: [] }), 400, "ValidationError");
      expectError(await apply(t, id, { kind: "literal", value: { nested: true } }), 400, "ValidationError");
      expectError(
        await call("POST", `/table/column/${id}/computed/apply`, { token: t.owner.token, body: { description: [] } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/column/${id}/computed/apply`, {
          token: t.owner.token,
          body: { description: [], expression: lit(1), extra: 1 },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/column/bad id!/computed/apply`, {
          token: t.owner.token,
          body: { description: [], expression: lit(1) },
        }),
        400,
        "ValidationError",
      );
      expect((await columnRecord(id))!.data.type).toBe("text");
    });

    it("404 for a missing or deleted column, a deleted table, and a caller who cannot read the project", async () => {
      const { table } = await priceTable();
      expectError(await apply(t, "01NOSUCHCOLUMN0000000000000", lit(1)), 404, "NotFoundError");
      expectError(await apply(t, table.col.Total!, lit(1), [], t.outsider.token), 404, "NotFoundError");
      await softDelete("columns", table.col.Note!);
      expectError(await apply(t, table.col.Note!, lit(1)), 404, "NotFoundError");
      await softDelete("tables", table.tableId);
      expectError(await apply(t, table.col.Total!, lit(1)), 404, "NotFoundError");
    });

    it("403 for a workspace viewer; an editor may apply", async () => {
      const { table } = await priceTable();
      expectError(await apply(t, table.col.Total!, lit(1), [], t.viewer.token), 403, "ForbiddenError");
      expect((await apply(t, table.col.Total!, lit(1), [], t.editor.token)).status).toBe(200);
    });

    it("409 for the identifier column", async () => {
      const { table } = await priceTable();
      expectError(await apply(t, table.col.Name!, lit(1)), 409, "ConflictError");
    });

    describe("422 leaves the column and its cells unchanged", () => {
      let table: SeededTable;
      let other: SeededTable;
      let before: Awaited<ReturnType<typeof columnRecord>>;
      let cellsBefore: Map<string, unknown>;
      beforeAll(async () => {
        ({ table } = await priceTable());
        other = await seedTable(t, [{ name: "Elsewhere", type: "number" }], "Other");
        await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
          token: t.owner.token,
          body: { description: [], expression: op("+", col(table.col.Price!), lit(1)) },
        });
        before = await columnRecord(table.col.Total!);
        cellsBefore = await cellValues(table.col.Total!);
      });

      async function expect422(
        expression: unknown,
        description: unknown[] = [],
        columnId = table.col.Total!,
        pattern?: RegExp,
      ) {
        const res = await apply(t, columnId, expression, description);
        expectError(res, 422, "UnprocessableEntityError");
        if (pattern) expect(res.body.message).toMatch(pattern);
        expect(await columnRecord(table.col.Total!)).toEqual(before);
        expect(await cellValues(table.col.Total!)).toEqual(cellsBefore);
        return res;
      }

      it("a column of another table, in the expression or the description", async () => {
        await expect422(op("+", col(other.col.Elsewhere!), lit(1)), [], undefined, /not a column of this table/);
        await expect422(lit(1), [chip("Elsewhere", other.col.Elsewhere!)], undefined, /not a column of this table/);
      });

      it("a deleted column", async () => {
        const gone = await seedColumn(t, table, { name: "Gone", type: "number" });
        await softDelete("columns", gone);
        await expect422(col(gone), [], undefined, /deleted/);
      });

      it("an unknown function", async () => {
        const res = await expect422(fn("NOSUCHFN", lit(1)), [], undefined, /Unknown function NOSUCHFN/);
        // Where it is in the tree's canonical text, NOSUCHFN(1), as a typed formula's problems are.
        expect(res.body.details).toEqual([
          { path: "expression.fn", message: "Unknown function NOSUCHFN", line: 1, column: 1 },
        ]);
      });

      it("a wrong number of arguments", async () => {
        await expect422(fn("IF", lit(true)), [], undefined, /IF takes 2 to 3 arguments, got 1/);
        await expect422(fn("ROUND", lit(1), lit(2), lit(3)), [], undefined, /ROUND takes 2 arguments, got 3/);
        await expect422(fn("PI", lit(1)), [], undefined, /PI takes 0 arguments/);
        await expect422(fn("SUM"), [], undefined, /SUM takes at least 1 argument, got 0/);
        await expect422(fn("IFS", lit(true), lit(1), lit(false)), [], undefined, /pairs/);
      });

      it("a tree deeper than 64 (and one deep enough to break a recursive parser)", async () => {
        expect((await apply(t, table.col.Qty!, deepTree(64))).status).toBe(200);
        await expect422(deepTree(65), [], undefined, /more than 64 levels/);
        await expect422(deepTree(20_000), [], undefined, /more than 64 levels/);
      });

      it("a cycle through another formula column, and a self-reference", async () => {
        const a = await seedColumn(t, table, { name: "A", type: "text" });
        await ok("POST", `/table/column/${a}/computed/apply`, {
          token: t.owner.token,
          body: { description: [], expression: op("+", col(table.col.Total!), lit(1)) },
        });
        // Total → A → Total
        await expect422(op("*", col(a), lit(2)), [], undefined, /cycle: "Total" → "A" → "Total"/);
        await expect422(op("+", col(table.col.Total!), lit(1)), [], undefined, /refers to its own column "Total"/);
      });
    });
  });

  describe("row recalculation through the coordinator", () => {
    it("stores writes and recomputes the row's formula cells in dependency order", async () => {
      const { table, rows } = await priceTable();
      const double = await seedColumn(t, table, { name: "Double", type: "text" });
      await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("+", col(double), lit(1)) },
      });
      await ok("POST", `/table/column/${double}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: op("*", col(table.col.Price!), lit(2)) },
      });

      const result = await recomputeRowsThroughCoordinator(env, {
        tableId: table.tableId,
        rowIds: [rows[0]!],
        writes: [{ rowId: rows[0]!, columnId: table.col.Price!, data: 50 }],
      });
      expect(result).toEqual({
        updatedRows: 1,
        formulaCells: { [rows[0]!]: { [double]: 100, [table.col.Total!]: 101 } },
      });
      expect((await cellValues(table.col.Price!)).get(rows[0]!)).toBe(50);

      // A row created without cells gets its formulas computed.
      const [fresh] = await seedRows(table, [{ Name: "new", Price: 1 }]);
      const created = await recomputeRowsThroughCoordinator(env, { tableId: table.tableId, rowIds: [fresh!] });
      expect(created.formulaCells[fresh!]).toEqual({ [double]: 2, [table.col.Total!]: 3 });
      expect(await recomputeRowsThroughCoordinator(env, { tableId: table.tableId, rowIds: [fresh!] })).toMatchObject({
        updatedRows: 0,
      });
    });

    it("refuses writes to computed columns (409) and to rows that are not live rows of the table (404)", async () => {
      const { table, rows } = await priceTable();
      await ok("POST", `/table/column/${table.col.Total}/computed/apply`, {
        token: t.owner.token,
        body: { description: [], expression: lit(1) },
      });
      await expect(
        recomputeRowsThroughCoordinator(env, {
          tableId: table.tableId,
          rowIds: [],
          writes: [{ rowId: rows[0]!, columnId: table.col.Total!, data: 5 }],
        }),
      ).rejects.toMatchObject({ code: "ConflictError" });
      await softDelete("rows", rows[1]!);
      await expect(
        recomputeRowsThroughCoordinator(env, {
          tableId: table.tableId,
          rowIds: [],
          writes: [{ rowId: rows[1]!, columnId: table.col.Price!, data: 5 }],
        }),
      ).rejects.toMatchObject({ code: "NotFoundError" });
    });
  });

  describe("concurrency", () => {
    it("concurrent applies and row writes on one table end as some serial order would", async () => {
      const table = await seedTable(t, [
        { name: "In", type: "number" },
        { name: "A", type: "text" },
        { name: "B", type: "text" },
      ]);
      const n = 3_000;
      const rows = await seedRows(
        table,
        Array.from({ length: n }, (_, i) => ({ Name: `r${i}`, In: i })),
      );
      const applyA = (k: number) => apply(t, table.col.A!, op("*", col(table.col.In!), lit(k)));
      const applies = [applyA(2), apply(t, table.col.B!, op("+", col(table.col.A!), lit(1))), applyA(3)];
      // Writes land while the applies read and evaluate: without the coordinator an apply that read the old In
      // would overwrite the A recomputed for these rows, and the write's recalculation would be lost.
      await new Promise((r) => setTimeout(r, 15));
      const written = rows.filter((_, i) => i % 300 === 7);
      const writes = written.map((rowId, j) =>
        recomputeRowsThroughCoordinator(env, {
          tableId: table.tableId,
          rowIds: [rowId],
          writes: [{ rowId, columnId: table.col.In!, data: 100_000 + j }],
        }),
      );
      const results = await Promise.all(applies);
      await Promise.all(writes);
      expect(results.map((r) => r.status)).toEqual([200, 200, 200]);

      // Whichever apply of A came last, every cell agrees with the final formulas and every write is kept.
      const finalA = (await columnRecord(table.col.A!))!.formula.expression;
      const k = finalA.args[1].value as number;
      expect([2, 3]).toContain(k);
      const [input, a, b] = await Promise.all([
        cellValues(table.col.In!),
        cellValues(table.col.A!),
        cellValues(table.col.B!),
      ]);
      written.forEach((rowId, j) => expect(input.get(rowId)).toBe(100_000 + j));
      for (const rowId of rows) {
        expect(a.get(rowId)).toBe((input.get(rowId) as number) * k);
        expect(b.get(rowId)).toBe((a.get(rowId) as number) + 1);
      }
    });

    it("different tables apply in parallel", async () => {
      const tables = await Promise.all(
        [0, 1, 2].map(() =>
          seedTable(t, [
            { name: "X", type: "number" },
            { name: "F", type: "text" },
          ]),
        ),
      );
      await Promise.all(
        tables.map((tb) =>
          seedRows(
            tb,
            Array.from({ length: 200 }, (_, i) => ({ X: i })),
          ),
        ),
      );
      const results = await Promise.all(tables.map((tb) => apply(t, tb.col.F!, op("+", col(tb.col.X!), lit(1)))));
      expect(results.map((r) => r.body)).toEqual([{ updatedRows: 200 }, { updatedRows: 200 }, { updatedRows: 200 }]);
    });
  });

  describe("scale", () => {
    it("applies to a 20,000-row table in one call", async () => {
      const table = await seedTable(t, [
        { name: "Amount", type: "number" },
        { name: "Rate", type: "number" },
        { name: "Result", type: "text" },
      ]);
      const n = 20_000;
      const rows = await seedRows(
        table,
        Array.from({ length: n }, (_, i) => ({ Name: `row ${i}`, Amount: i, Rate: (i % 7) + 1 })),
      );
      const expression = fn("ROUND", op("/", col(table.col.Amount!), col(table.col.Rate!)), lit(2));
      const t0 = Date.now();
      const res = await apply(t, table.col.Result!, expression);
      const ms = Date.now() - t0;
      expect(res.body).toEqual({ updatedRows: n });
      console.log(`E3 on ${n} rows: ${ms} ms`);
      const values = await cellValues(table.col.Result!);
      expect(values.size).toBe(n);
      for (const i of [0, 1, 4_999, 5_000, 5_001, 12_345, n - 1]) {
        expect(values.get(rows[i]!)).toBe(Math.round((i / ((i % 7) + 1)) * 100) / 100);
      }
      expect((await apply(t, table.col.Result!, expression)).body).toEqual({ updatedRows: 0 });
    });
  });

  describe("page reads", () => {
    it("read the same rows and cells whether a page travels as one JSON text or as rows", async () => {
      const { table, rows } = await priceTable();
      await softDelete("rows", rows[2]!);
      const columns = [table.col.Price!, table.col.Note!, table.col.Total!];
      const read = async (grouped: boolean) => {
        readOptions.grouped = grouped;
        try {
          const ctx = serviceContext(env as never, createDb(env.DB), workerActor).on(table.tableId);
          return [
            await readRowPage(ctx, { tableId: table.tableId, afterId: "", limit: 2, columnIds: columns }),
            await readRowPage(ctx, { tableId: table.tableId, afterId: rows[1]!, limit: 2, columnIds: columns }),
            await readRows(ctx, { tableId: table.tableId, rowIds: rows, columnIds: columns }),
          ];
        } finally {
          readOptions.grouped = true;
        }
      };
      const grouped = await read(true);
      expect(await read(false)).toEqual(grouped);
      // Page 1: every row has a Price and a Note cell (each column's scan is aligned with the page's rows).
      expect(grouped[0]).toEqual({
        rowIds: [rows[0], rows[1]],
        columnIds: columns,
        texts: [
          ["10", '"x"', null],
          ["2.5", '"y"', null],
        ],
      });
      // Page 2: the deleted row's cells lie in the page's id range (the scan is matched by id and they are dropped).
      expect(grouped[1]).toEqual({ rowIds: [rows[3]], columnIds: columns, texts: [[null, null, null]] });
      expect(grouped[2]!.rowIds).toEqual([rows[0], rows[1], rows[3]]);
    });

    it("read more columns than one query binds (in groups, merged by row id) the same way", async () => {
      const names = Array.from({ length: 95 }, (_, k) => `C${k}`);
      const table = await seedTable(
        t,
        names.map((name) => ({ name, type: "number" })),
      );
      // Column k has a cell in every row whose index is not a multiple of (k % 4) + 2: aligned scans and sparse ones.
      const rows = await seedRows(
        table,
        Array.from({ length: 7 }, (_, i) =>
          Object.fromEntries([
            ["Name", `r${i}`],
            ...names.flatMap((name, k) => (i % ((k % 4) + 2) === 0 ? [] : [[name, i * 100 + k]])),
          ]),
        ),
      );
      const columnIds = names.map((name) => table.col[name]!);
      const read = async (grouped: boolean) => {
        readOptions.grouped = grouped;
        try {
          const ctx = serviceContext(env as never, createDb(env.DB), workerActor).on(table.tableId);
          return [
            await readRowPage(ctx, { tableId: table.tableId, afterId: "", limit: 4, columnIds }),
            await readRowPage(ctx, { tableId: table.tableId, afterId: rows[3]!, limit: 4, columnIds }),
          ];
        } finally {
          readOptions.grouped = true;
        }
      };
      const grouped = await read(true);
      expect(await read(false)).toEqual(grouped);
      expect(grouped.flatMap((p) => p.rowIds)).toEqual(rows);
      const expected = (i: number) => names.map((_, k) => (i % ((k % 4) + 2) === 0 ? null : String(i * 100 + k)));
      expect(grouped.flatMap((p) => p.texts)).toEqual(rows.map((_, i) => expected(i)));
    });

    it("read a deleted cell of a live row as blank, and rows without a cell among rows with one", async () => {
      const table = await seedTable(t, [{ name: "N", type: "number" }]);
      const rows = await seedRows(
        table,
        Array.from({ length: 6 }, (_, i) => (i === 3 ? { Name: `r${i}` } : { Name: `r${i}`, N: i })),
      );
      await shardD1(table.tableId)
        .prepare("UPDATE cells SET is_deleted = 1 WHERE row_id = ? AND column_id = ?")
        .bind(rows[1], table.col.N)
        .run();
      const read = async (grouped: boolean) => {
        readOptions.grouped = grouped;
        try {
          const ctx = serviceContext(env as never, createDb(env.DB), workerActor).on(table.tableId);
          return [
            await readRowPage(ctx, {
              tableId: table.tableId,
              afterId: "",
              limit: 3,
              columnIds: [table.col.N!, table.col.Name!],
            }),
            await readRowPage(ctx, {
              tableId: table.tableId,
              afterId: rows[2]!,
              limit: 3,
              columnIds: [table.col.N!, table.col.Name!],
            }),
          ];
        } finally {
          readOptions.grouped = true;
        }
      };
      const grouped = await read(true);
      expect(await read(false)).toEqual(grouped);
      expect(grouped[0]!.texts).toEqual([
        ["0", '"r0"'],
        [null, '"r1"'],
        ["2", '"r2"'],
      ]);
      expect(grouped[1]!.texts).toEqual([
        [null, '"r3"'],
        ["4", '"r4"'],
        ["5", '"r5"'],
      ]);
    });
  });
});

/** Formulas as people type them: POST /formula/parse, column writes with `formula: { text }`, E3 with `text`. */
describe("formulas as text over HTTP", () => {
  let t: Tenant;
  let tableId: string;
  let price: string;
  let qty: string;

  beforeAll(async () => {
    ({ t, tableId, price, qty } = await textFormulaOrdersFixture());
  });

  it("E3 takes the text too", async () => {
    const column = await addColumn(t.owner.token, tableId, "Discounted", { type: "number" });
    const applied = await ok("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { text: "ROUND({Price} * (1 - 10%), 3)" },
    });
    expect(applied.updatedRows).toBe(2);
    const rows = await allRows(t.owner.token, tableId);
    expect(rows.map((r) => r.cells[column._id]).sort()).toEqual([1.125, 9]);
    const listed = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(listed.formula.text).toBe("ROUND({Price} * (1 - 0.1), 3)");
    const bad = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { text: "{Price} +" },
    });
    expectError(bad, 422, "UnprocessableEntityError");
    expect(bad.body.details[0]).toMatchObject({ path: "text", line: 1, column: 10 });
    const neither = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: {},
    });
    expectError(neither, 400, "ValidationError");
  });

  it("gives a tree's problems their place in its canonical text", async () => {
    const column = await addColumn(t.owner.token, tableId, "Tree", { type: "number" });
    const res = await call("POST", `/table/column/${column._id}/computed/apply`, {
      token: t.editor.token,
      body: { description: [], expression: op("+", col(price), { kind: "call", fn: "ROUND", args: [col(qty)] }) },
    });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.details[0]).toMatchObject({ path: "expression.args.1.args", line: 1, column: 11 });
    expect(res.body.message).toContain("{Price} + ROUND({Qty})");
  });
});
