import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { shardD1 } from "../../support/shards";
import { addColumn, addRow, allRows, bulkRows, makeTable, makeTypedTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

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
    expectError(await call("POST", `/table/${tableId}/row`, { token: t.owner.token, body: {} }), 404, "NotFoundError");
  });
});

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
    expect(await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token })).toEqual({ data: [], nextCursor: null });
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

describe("paging", () => {
  let tableId: string;
  let nameColumnId: string;
  let inserted: string[] = [];

  beforeAll(async () => {
    ({ tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Paging"));
    for (let batch = 0; batch < 3; batch++) {
      const size = batch < 2 ? 1000 : 500;
      const rows = await bulkRows(
        t.owner.token,
        tableId,
        Array.from({ length: size }, (_, i) => ({ [nameColumnId]: `r${batch * 1000 + i}` })),
      );
      inserted.push(...rows.map((r) => r._id));
    }
  });

  it("returns each of 2,500 rows exactly once, in creation order", async () => {
    for (const limit of [1000, 333]) {
      const rows = await allRows(t.viewer.token, tableId, limit);
      expect(rows.map((r) => r._id)).toEqual(inserted);
      expect(rows[2499].cells[nameColumnId]).toBe("r2499");
    }
    const first = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(first.data).toHaveLength(100);
    expect(typeof first.nextCursor).toBe("string");
  });

  it("neither skips nor repeats rows added between page fetches", async () => {
    const added: string[] = [];
    const seen = await allRows(t.owner.token, tableId, 400, async (page) => {
      if (page < 4) {
        const rows = await bulkRows(
          t.owner.token,
          tableId,
          Array.from({ length: 150 }, (_, i) => ({ [nameColumnId]: `late ${page}-${i}` })),
        );
        added.push(...rows.map((r) => r._id));
      }
      if (page === 1)
        await ok("POST", `/table/${tableId}/row`, { token: t.owner.token, body: {} }).then((r) =>
          added.push(r.data.row._id),
        );
    });
    const ids = seen.map((r) => r._id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual([...inserted, ...added]);
    inserted = ids;
  });

  it("rejects bad limits and cursors with 400", async () => {
    for (const limit of ["0", "1001", "abc", "1.5", ""]) {
      expectError(
        await call("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { limit } }),
        400,
        "ValidationError",
      );
    }
    for (const cursor of ["!!!", "bm9wZQ", btoa("12:bad id"), btoa("x:01ABC")]) {
      const res = await call("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { cursor } });
      expectError(res, 400, "ValidationError");
    }
    const page = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { limit: 1 } });
    expect(page.data).toHaveLength(1);
  });
});
