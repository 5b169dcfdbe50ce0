/** createRow: POST /table/{tableId}/row (src/routes/rows/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant, expectError } from "../../support/harness";
import { allRows, makeTable, addRow, makeTypedTable } from "../../support/tableHarness";
import { ordersFixture, formulaOrdersFixture } from "../../support/orders";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** The row and cell routes recompute formula cells in the same request, through the table's coordinator. */
describe("formula recalculation through the row and cell routes", () => {
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;
  let label: string;

  beforeAll(async () => {
    ({ t, tableId, nameCol, qty, price, total, label } = await formulaOrdersFixture());
  });

  it("computes a new row's formula cells in the create response", async () => {
    const res = await ok("POST", `/table/${tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [nameCol]: "Pens", [qty]: 3, [price]: 1.25 } },
    });
    const byColumn = Object.fromEntries(res.data.cells.map((c: any) => [c.columnId, c.data]));
    expect(byColumn[total]).toBe(3.75);
    expect(byColumn[label]).toBe("Pens: 3.8");
  });

  it("recomputes after a cell update, and refuses writes to formula cells", async () => {
    const created = await ok("POST", `/table/${tableId}/row`, {
      token: t.editor.token,
      body: { cells: { [nameCol]: "Ink", [qty]: 2, [price]: 10 } },
    });
    const rowId = created.data.row._id;
    await ok("PUT", `/table/row/${rowId}/cell/${qty}`, { token: t.editor.token, body: { data: 5 } });
    const row = (await allRows(t.owner.token, tableId)).find((r) => r._id === rowId);
    expect(row.cells[total]).toBe(50);
    expect(row.cells[label]).toBe("Ink: 50");
    const refused = await call("PUT", `/table/row/${rowId}/cell/${total}`, {
      token: t.editor.token,
      body: { data: 1 },
    });
    expect(refused.status).toBe(409);
  });
});

describe("rows", () => {
  /** A table with one column of every writable type, plus a formula and a oneMany column. */
  const typedTable = (token = t.owner.token) => makeTypedTable(token, t.projectId);

  describe("rows and cells", () => {
    it("creates a row with typed cells and returns the row with its Cell records", async () => {
      const { tableId, col } = await typedTable();
      const values: Record<string, unknown> = {
        [col.identifier!]: "Alpha",
        [col.text!]: "",
        [col.number!]: -1.5,
        [col.checkbox!]: false,
        [col.date!]: 1_700_000_000_000,
        [col.url!]: "https://example.com/a?b=c",
        [col.email!]: "a.b@example.co.uk",
        [col.select!]: "red",
        [col.multiSelect!]: ["blue", "red"],
      };
      const res = await ok("POST", `/table/${tableId}/row`, {
        token: t.editor.token,
        body: { cells: { ...values, [col.number!]: -1.5 } },
      });
      const row = res.data.row;
      expect(row).toEqual({
        _id: expect.any(String),
        projectId: t.projectId,
        tableId,
        workspaceId: t.workspaceId,
        ownerId: t.editor.id,
        originId: "",
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
        isDeleted: false,
      });
      expect(res.data.cells).toHaveLength(Object.keys(values).length);
      for (const cell of res.data.cells) {
        expect(cell).toEqual({
          _id: expect.any(String),
          tableId,
          rowId: row._id,
          columnId: expect.any(String),
          workspaceId: t.workspaceId,
          originId: "",
          isIdentifier: cell.columnId === col.identifier,
          data: values[cell.columnId],
          createdAt: expect.any(Number),
          updatedAt: expect.any(Number),
          isDeleted: false,
        });
        expect(await ok("GET", `/table/cell/${cell._id}`, { token: t.viewer.token })).toEqual({ data: cell });
      }
      expect(await ok("GET", `/table/row/${row._id}`, { token: t.viewer.token })).toEqual({ data: row });

      const listed = await ok("GET", `/table/${tableId}/rows`, { token: t.viewer.token });
      expect(listed.nextCursor).toBeNull();
      expect(listed.data).toEqual([
        {
          ...row,
          commentCount: 0,
          openCommentCount: 0,
          cells: { ...Object.fromEntries(Object.values(col).map((id) => [id, null])), ...values, [col.oneMany!]: [] },
        },
      ]);
      const empty = await ok("POST", `/table/${tableId}/row`, { token: t.owner.token, body: {} });
      expect(empty.data.cells).toEqual([]);
    });

    it("rejects values of the wrong type with 400 and details, computed columns with 409", async () => {
      const { tableId, col } = await typedTable();
      const wrong: [string, unknown][] = [
        ["identifier", 1],
        ["text", ["a"]],
        ["text", "x".repeat(100_001)],
        ["number", "1"],
        ["number", true],
        ["checkbox", "true"],
        ["checkbox", 0],
        ["date", "2024-01-01"],
        ["date", 1.5],
        ["date", 9e15],
        ["url", "not a url"],
        ["url", "javascript:alert(1)"],
        ["url", 5],
        ["email", "nobody"],
        ["email", "a@b"],
        ["select", "green"],
        ["select", ["red"]],
        ["multiSelect", "red"],
        ["multiSelect", ["red", "green"]],
        ["multiSelect", ["red", "red"]],
        ["multiSelect", [1]],
      ];
      const row = await addRow(t.owner.token, tableId);
      for (const [type, value] of wrong) {
        const res = await call("POST", `/table/${tableId}/row`, {
          token: t.owner.token,
          body: { cells: { [col[type]!]: value } },
        });
        expectError(res, 400, "ValidationError");
        expect(res.body.details, `${type} ${JSON.stringify(value).slice(0, 40)}`).toEqual([
          { path: `cells.${col[type]}`, message: expect.any(String) },
        ]);
        const put = await call("PUT", `/table/row/${row.row._id}/cell/${col[type]}`, {
          token: t.owner.token,
          body: { data: value },
        });
        expectError(put, 400, "ValidationError");
        expect(put.body.details[0].path).toBe("data");
      }
      for (const type of ["formula", "oneMany"]) {
        expectError(
          await call("POST", `/table/${tableId}/row`, { token: t.owner.token, body: { cells: { [col[type]!]: 1 } } }),
          409,
          "ConflictError",
        );
        expectError(
          await call("PUT", `/table/row/${row.row._id}/cell/${col[type]}`, {
            token: t.owner.token,
            body: { data: null },
          }),
          409,
          "ConflictError",
        );
      }
      const unknown = await call("POST", `/table/${tableId}/row`, {
        token: t.owner.token,
        body: { cells: { "01NOPE": "x" } },
      });
      expectError(unknown, 400, "ValidationError");
      expect(unknown.body.details[0].path).toBe("cells.01NOPE");
      expectError(
        await call("POST", `/table/${tableId}/row`, { token: t.owner.token, body: { cells: [] } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/row`, { token: t.owner.token, body: { cels: {} } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("PUT", `/table/row/${row.row._id}/cell/${col.text}`, { token: t.owner.token, body: {} }),
        400,
        "ValidationError",
      );
      expectError(
        await call("PUT", `/table/row/${row.row._id}/cell/${col.text}`, {
          token: t.owner.token,
          body: { data: "x", extra: 1 },
        }),
        400,
        "ValidationError",
      );
      // Nothing was written by any refused request.
      const rows = await allRows(t.owner.token, tableId);
      expect(rows).toHaveLength(1);
      expect(Object.values(rows[0].cells).every((v) => v === null || (Array.isArray(v) && v.length === 0))).toBe(true);
    });

    it("guards row and cell routes: viewer 403, outsider and missing 404, cell of another table 404", async () => {
      const { tableId, col } = await typedTable();
      const other = await makeTable(t.owner.token, t.projectId, "Other");
      const { row, cells } = await addRow(t.owner.token, tableId, { [col.text!]: "v" });
      const cellId = cells[0]._id;
      expectError(
        await call("POST", `/table/${tableId}/row`, { token: t.viewer.token, body: {} }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", `/table/${tableId}/rows`, { token: t.viewer.token, body: { rows: [{}] } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/${col.text}`, { token: t.viewer.token, body: { data: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(await call("DELETE", `/table/row/${row._id}`, { token: t.viewer.token }), 403, "ForbiddenError");
      for (const [method, path, body] of [
        ["POST", `/table/${tableId}/row`, {}],
        ["POST", `/table/${tableId}/rows`, { rows: [{}] }],
        ["GET", `/table/${tableId}/rows`, undefined],
        ["PUT", `/table/row/${row._id}/cell/${col.text}`, { data: "x" }],
        ["DELETE", `/table/row/${row._id}`, undefined],
      ] as const) {
        expectError(await call(method, path, { token: t.outsider.token, body }), 404, "NotFoundError");
      }
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/${other.nameColumnId}`, {
          token: t.owner.token,
          body: { data: "x" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/table/row/01NOPE/cell/${col.text}`, { token: t.owner.token, body: { data: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/01NOPE`, { token: t.owner.token, body: { data: "x" } }),
        404,
        "NotFoundError",
      );
      // Existence comes before the role (docs/api-guide.md › Conventions): a viewer writing a missing column, or one of another table, gets 404, not 403.
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/01NOPE`, { token: t.viewer.token, body: { data: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/${other.nameColumnId}`, {
          token: t.viewer.token,
          body: { data: "x" },
        }),
        404,
        "NotFoundError",
      );
      expectError(await call("POST", "/table/01NOPE/row", { token: t.owner.token, body: {} }), 404, "NotFoundError");
      expectError(await call("GET", "/table/01NOPE/rows", { token: t.owner.token }), 404, "NotFoundError");
      expectError(
        await call("PUT", `/table/row/${row._id}/cell/bad%20id`, { token: t.owner.token, body: { data: "x" } }),
        400,
        "ValidationError",
      );

      // E15 and E16: a missing record and one the caller cannot read answer identically.
      const missingRow = await call("GET", "/table/row/01NOPE", { token: t.outsider.token });
      const hiddenRow = await call("GET", `/table/row/${row._id}`, { token: t.outsider.token });
      expectError(hiddenRow, 404, "NotFoundError");
      expect(hiddenRow.body).toEqual(missingRow.body);
      const missingCell = await call("GET", "/table/cell/01NOPE", { token: t.outsider.token });
      const hiddenCell = await call("GET", `/table/cell/${cellId}`, { token: t.outsider.token });
      expectError(hiddenCell, 404, "NotFoundError");
      expect(hiddenCell.body).toEqual(missingCell.body);
      expectError(await call("GET", "/table/row/bad%20id", { token: t.owner.token }), 400, "ValidationError");
      expectError(await call("GET", "/table/cell/bad%20id", { token: t.owner.token }), 400, "ValidationError");
    });
  });
});

/** Select and multiSelect values by label in every row and cell write (docs/api-guide.md › Bulk writes). */
describe("selectLabels", () => {
  let tableId: string;
  let col: Record<string, string>;
  beforeAll(async () => {
    ({ tableId, col } = await makeTypedTable(t.owner.token, t.projectId));
  });

  describe("select values by label", () => {
    it("POST …/row, POST …/rows and PUT …/cell store the item id for a label", async () => {
      const one = await ok("POST", `/table/${tableId}/row`, {
        token: t.editor.token,
        body: { cells: { [col.select!]: "Red", [col.multiSelect!]: ["Blue", "red"] } },
      });
      const byColumn = Object.fromEntries(one.data.cells.map((c: any) => [c.columnId, c.data]));
      expect(byColumn[col.select!]).toBe("red");
      expect(byColumn[col.multiSelect!]).toEqual(["blue", "red"]);
      const many = await ok("POST", `/table/${tableId}/rows`, {
        token: t.editor.token,
        body: { rows: [{ cells: { [col.select!]: "Blue" } }, { cells: { [col.multiSelect!]: ["Red"] } }] },
      });
      expect(many.data.rows[0].cells[col.select!]).toBe("blue");
      expect(many.data.rows[1].cells[col.multiSelect!]).toEqual(["red"]);
      const rowId = one.data.row._id;
      const cell = await ok("PUT", `/table/row/${rowId}/cell/${col.select!}`, {
        token: t.editor.token,
        body: { data: "Blue" },
      });
      expect(cell.data.data).toBe("blue");
      const stored = (await allRows(t.viewer.token, tableId)).find((r) => r._id === rowId);
      expect(stored.cells[col.select!]).toBe("blue");
    });

    it("a label that names no item is 400 as an unknown id is; a repeated item by id and label is 400", async () => {
      expectError(
        await call("POST", `/table/${tableId}/row`, {
          token: t.editor.token,
          body: { cells: { [col.select!]: "Green" } },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/row`, {
          token: t.editor.token,
          body: { cells: { [col.multiSelect!]: ["Red", "red"] } },
        }),
        400,
        "ValidationError",
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
describe("table routes on the request path", () => {
  let tok: string;
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;

  beforeAll(async () => {
    ({ tok, tableId, nameCol, qty, price, total } = await ordersFixture());
  });

  describe("issue 14: row writes answer with the formula cells computed in the request", () => {
    it("POST row: the stored Cell records include the computed formula cells", async () => {
      const res = await ok("POST", `/table/${tableId}/row`, {
        token: tok,
        body: { cells: { [nameCol]: "Ink", [qty]: 4, [price]: 2.5 } },
      });
      const totalCell = res.data.cells.find((c: any) => c.columnId === total);
      expect(totalCell).toMatchObject({ rowId: res.data.row._id, tableId, data: 10, isDeleted: false });
      // The record is the stored one: E15 returns it as is.
      expect((await ok("GET", `/table/cell/${totalCell._id}`, { token: tok })).data).toEqual(totalCell);
      expect(res.data.cells.map((c: any) => c.columnId)).toEqual(
        [...res.data.cells.map((c: any) => c.columnId)].sort(),
      );
    });
  });
});
