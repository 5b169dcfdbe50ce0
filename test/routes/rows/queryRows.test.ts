/** Querying rows (docs/api-guide.md › Querying rows): GET /table/{tableId}/rows with query members and POST /table/{tableId}/query. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, bulkRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
let tableId: string;
const col: Record<string, any> = {};
const ids: Record<string, any> = {};
const ITEMS = [
  { id: "red", label: "Red", color: "#f00" },
  { id: "blue", label: "Blue", color: "#00f" },
];
const DAY = 86_400_000;
const today = Math.floor(Date.now() / DAY) * DAY;

beforeAll(async () => {
  t = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Invoices");
  tableId = table.tableId;
  col.name = table.nameColumnId;
  for (const type of ["text", "number", "checkbox", "date", "email"])
    col[type] = (await addColumn(t.owner.token, tableId, type, { type }))._id;
  col.select = (await addColumn(t.owner.token, tableId, "status", { type: "select", selectItems: ITEMS }))._id;
  col.multi = (await addColumn(t.owner.token, tableId, "tags", { type: "multiSelect", selectItems: ITEMS }))._id;
  col.double = (
    await addColumn(t.owner.token, tableId, "double", { type: "formula", formula: { text: "{number} * 2" } })
  )._id;
  col.rel = (
    await addColumn(t.owner.token, tableId, "same text", {
      type: "oneMany",
      oneMany: { tableId, filter: [{ targetColumnId: col.text, op: "eq", sourceColumnId: col.text }] },
    })
  )._id;
  const made = await bulkRows(t.owner.token, tableId, [
    {
      [col.name]: "a",
      [col.text]: "Apple pie",
      [col.number]: 10,
      [col.checkbox]: true,
      [col.date]: today + 1000,
      [col.select]: "red",
      [col.multi]: ["red", "blue"],
    },
    {
      [col.name]: "b",
      [col.text]: "banana",
      [col.number]: 5,
      [col.date]: today - 3 * DAY,
      [col.select]: "blue",
      [col.multi]: ["blue"],
    },
    { [col.name]: "c", [col.text]: "Cherry 50%_off", [col.number]: 5, [col.checkbox]: false, [col.email]: "c@x.io" },
    { [col.name]: "d", [col.text]: "banana", [col.number]: -1 },
    { [col.name]: "e" },
  ]);
  for (const r of made) ids[r.cells[col.name]] = r._id;
});

const names = (res: { data: { _id: string }[] }) => res.data.map((r) => Object.keys(ids).find((k) => ids[k] === r._id));

async function q(filter: unknown, extra: Record<string, string> = {}) {
  return ok("GET", `/table/${tableId}/rows`, {
    token: t.viewer.token,
    query: { filter: JSON.stringify(filter), ...extra },
  });
}
const where = (columnId: string, op: string, value?: unknown) => ({ and: [{ columnId: col[columnId], op, value }] });

describe("queryRows: every operator on every type", () => {
  const cases: [string, string, unknown, string[]][] = [
    ["text", "eq", "banana", ["b", "d"]],
    ["text", "neq", "banana", ["a", "c", "e"]],
    ["text", "contains", "an", ["b", "d"]],
    ["text", "contains", "APPLE", ["a"]],
    ["text", "contains", "50%_", ["c"]],
    ["text", "notContains", "an", ["a", "c", "e"]],
    ["text", "startsWith", "Ch", ["c"]],
    ["text", "isEmpty", undefined, ["e"]],
    ["text", "isNotEmpty", undefined, ["a", "b", "c", "d"]],
    ["name", "eq", "c", ["c"]],
    ["email", "contains", "@x", ["c"]],
    ["number", "eq", 5, ["b", "c"]],
    ["number", "neq", 5, ["a", "d", "e"]],
    ["number", "lt", 5, ["d"]],
    ["number", "lte", 5, ["b", "c", "d"]],
    ["number", "gt", 5, ["a"]],
    ["number", "gte", 5, ["a", "b", "c"]],
    ["number", "between", [0, 7], ["b", "c"]],
    ["number", "isEmpty", undefined, ["e"]],
    ["number", "isNotEmpty", undefined, ["a", "b", "c", "d"]],
    ["date", "eq", today + 1000, ["a"]],
    ["date", "eq", { relative: "today" }, ["a"]],
    ["date", "lt", { relative: "today" }, ["b"]],
    ["date", "gte", { relative: "pastDays", days: 3 }, ["a", "b"]],
    ["date", "eq", { relative: "nextDays", days: 2 }, ["a"]],
    ["date", "between", [today - 5 * DAY, today - DAY], ["b"]],
    ["date", "isEmpty", undefined, ["c", "d", "e"]],
    ["checkbox", "is", true, ["a"]],
    ["checkbox", "is", false, ["b", "c", "d", "e"]],
    ["select", "is", "red", ["a"]],
    ["select", "is", "Blue", ["b"]],
    ["select", "isNot", "red", ["b", "c", "d", "e"]],
    ["select", "isAnyOf", ["red", "Blue"], ["a", "b"]],
    ["select", "isNoneOf", ["red"], ["b", "c", "d", "e"]],
    ["multi", "hasAny", ["red"], ["a"]],
    ["multi", "hasAll", ["red", "Blue"], ["a"]],
    ["multi", "hasNone", ["red"], ["b", "c", "d", "e"]],
    ["multi", "isEmpty", undefined, ["c", "d", "e"]],
    ["double", "eq", 10, ["b", "c"]],
    ["double", "gt", 9, ["a", "b", "c"]],
    ["double", "lt", 0, ["d"]],
    ["rel", "isNotEmpty", undefined, ["a", "b", "c", "d"]],
    ["rel", "isEmpty", undefined, ["e"]],
  ];
  it.each(cases)("%s %s %j", async (column, op, value, expected) => {
    expect(names(await q(where(column, op, value)))).toEqual(expected);
  });

  it("oneMany hasAny names related rows", async () => {
    expect(names(await q(where("rel", "hasAny", [ids.d])))).toEqual(["b", "d"]);
  });

  it("and/or groups nest", async () => {
    const filter = {
      or: [
        {
          and: [
            { columnId: col.number, op: "eq", value: 5 },
            { columnId: col.text, op: "eq", value: "banana" },
          ],
        },
        { columnId: col.checkbox, op: "is", value: true },
      ],
    };
    expect(names(await q(filter))).toEqual(["a", "b"]);
  });

  it("filters a formula column by its value after recomputation", async () => {
    await ok("PUT", `/table/row/${ids.d}/cell/${col.number}`, { token: t.owner.token, body: { data: 21 } });
    expect(names(await q(where("double", "eq", 42)))).toEqual(["d"]);
    await ok("PUT", `/table/row/${ids.d}/cell/${col.number}`, { token: t.owner.token, body: { data: -1 } });
    expect(names(await q(where("double", "eq", 42)))).toEqual([]);
  });
});

describe("queryRows: sort and cursor", () => {
  it("sorts with empty values last in both directions and ties in row order", async () => {
    const asc = await q({ and: [] }, { sort: JSON.stringify([{ columnId: col.number, direction: "asc" }]) });
    expect(names(asc)).toEqual(["d", "b", "c", "a", "e"]);
    const desc = await q({ and: [] }, { sort: JSON.stringify([{ columnId: col.number, direction: "desc" }]) });
    expect(names(desc)).toEqual(["a", "b", "c", "d", "e"]);
    const two = await ok("POST", `/table/${tableId}/query`, {
      token: t.viewer.token,
      body: { sort: [{ columnId: col.text }, { columnId: col.name, direction: "desc" }] },
    });
    expect(names(two)).toEqual(["a", "c", "d", "b", "e"]);
  });

  it("pages a sorted query by cursor with nothing repeated or skipped while rows are inserted", async () => {
    const own = await makeTable(t.owner.token, t.projectId, "Paging");
    const n = (await addColumn(t.owner.token, own.tableId, "n", { type: "number" }))._id;
    const first = await bulkRows(
      t.owner.token,
      own.tableId,
      Array.from({ length: 30 }, (_, i) => ({ [n]: i % 4 === 0 ? null : i % 7 })),
    );
    const existing = new Set(first.map((r) => r._id));
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page++) {
      const res = await ok("POST", `/table/${own.tableId}/query`, {
        token: t.owner.token,
        body: { sort: [{ columnId: n, direction: "desc" }], limit: 4, ...(cursor ? { cursor } : {}) },
      });
      seen.push(...res.data.map((r: { _id: string }) => r._id));
      await bulkRows(t.owner.token, own.tableId, [{ [n]: page % 7 }, { [n]: null }]);
      if (!res.nextCursor) break;
      cursor = res.nextCursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of existing) expect(seen).toContain(id);
  });

  it("sorts by the values every write path leaves: a cell write, a bulk PATCH, a cleared cell, a formula recompute", async () => {
    const own = await makeTable(t.owner.token, t.projectId, "Sort keys");
    const n = (await addColumn(t.owner.token, own.tableId, "n", { type: "number" }))._id;
    const f = (await addColumn(t.owner.token, own.tableId, "f", { type: "formula", formula: { text: "{n} * -1" } }))
      ._id;
    const [a, b, c] = (await bulkRows(t.owner.token, own.tableId, [{ [n]: 3 }, { [n]: 1 }, { [n]: 2 }])).map(
      (r) => r._id as string,
    );
    const order = async (columnId: string, direction: "asc" | "desc") =>
      (
        await ok("POST", `/table/${own.tableId}/query`, {
          token: t.viewer.token,
          body: { sort: [{ columnId, direction }] },
        })
      ).data.map((r: { _id: string }) => r._id);
    expect(await order(f, "asc")).toEqual([a, c, b]);
    await ok("PUT", `/table/row/${b}/cell/${n}`, { token: t.owner.token, body: { data: 10 } });
    expect(await order(n, "desc")).toEqual([b, a, c]);
    expect(await order(f, "asc")).toEqual([b, a, c]);
    await ok("PATCH", `/table/${own.tableId}/rows`, {
      token: t.owner.token,
      body: {
        rows: [
          { _id: a, cells: { [n]: 20 } },
          { _id: c, cells: { [n]: null } },
        ],
      },
    });
    expect(await order(n, "desc")).toEqual([a, b, c]);
    expect(await order(n, "asc")).toEqual([b, a, c]);
    expect((await order(f, "asc")).slice(0, 2)).toEqual([a, b]);
    await ok("DELETE", `/table/row/${a}`, { token: t.owner.token });
    expect(await order(n, "desc")).toEqual([b, c]);
  });

  it("sorts a first page on several keys like the full order, whatever the page size and empty first keys", async () => {
    const own = await makeTable(t.owner.token, t.projectId, "Two keys");
    const g = (await addColumn(t.owner.token, own.tableId, "g", { type: "number" }))._id;
    const h = (await addColumn(t.owner.token, own.tableId, "h", { type: "number" }))._id;
    const values = Array.from({ length: 14 }, (_, i) => ({ g: i % 5 === 0 ? null : i % 3, h: i % 4 === 1 ? null : i }));
    const made = await bulkRows(
      t.owner.token,
      own.tableId,
      values.map((x) => ({ [g]: x.g, [h]: x.h })),
    );
    const cmp = (a: number | null, b: number | null, desc: boolean) =>
      a === b ? 0 : a === null ? 1 : b === null ? -1 : desc ? b - a : a - b;
    for (const [gDir, limit] of [
      ["asc", 4],
      ["desc", 4],
      ["asc", 12],
      ["desc", 1],
    ] as const) {
      const expected = made
        .map((r, i) => ({ id: r._id as string, i, ...values[i]! }))
        .sort((a, b) => cmp(a.g, b.g, gDir === "desc") || cmp(a.h, b.h, true) || a.i - b.i)
        .map((r) => r.id);
      const sort = [
        { columnId: g, direction: gDir },
        { columnId: h, direction: "desc" },
      ];
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const res = await ok("POST", `/table/${own.tableId}/query`, {
          token: t.viewer.token,
          body: { sort, limit, ...(cursor ? { cursor } : {}) },
        });
        if (!cursor) expect(res.data.map((r: { _id: string }) => r._id)).toEqual(expected.slice(0, limit));
        seen.push(...res.data.map((r: { _id: string }) => r._id));
        cursor = res.nextCursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual(expected);
    }
  });

  it("a cursor of another sort is 400", async () => {
    const res = await q({ and: [] }, { sort: JSON.stringify([{ columnId: col.number }]), limit: "1" });
    const bad = await call("GET", `/table/${tableId}/rows`, {
      token: t.viewer.token,
      query: { sort: JSON.stringify([{ columnId: col.text }]), cursor: res.nextCursor },
    });
    expectError(bad, 400, "ValidationError");
  });
});

describe("queryRows: fields, cellFormat, expand, search", () => {
  it("returns only the fields asked for, plus the identifier", async () => {
    const res = await q(where("name", "eq", "a"), { fields: col.number });
    expect(res.data[0].cells).toEqual({ [col.name]: "a", [col.number]: 10 });
  });

  it("cellFormat=string gives labels, ISO dates and joined lists", async () => {
    const res = await q(where("name", "eq", "a"), { cellFormat: "string" });
    const cells = res.data[0].cells;
    expect(cells[col.select]).toBe("Red");
    expect(cells[col.multi]).toBe("Red, Blue");
    expect(cells[col.date]).toBe(new Date(today + 1000).toISOString());
    expect(cells[col.number]).toBe("10");
    expect(cells[col.email]).toBe("");
  });

  it("expands related rows inline", async () => {
    const res = await q(where("name", "eq", "b"), { expand: col.rel });
    const expanded = res.data[0].expanded[col.rel].map((r: { _id: string }) => r._id);
    expect(expanded).toEqual([ids.b, ids.d]);
  });

  it("searches within the table", async () => {
    const res = await ok("POST", `/table/${tableId}/query`, { token: t.viewer.token, body: { search: "cherry" } });
    expect(names(res)).toEqual(["c"]);
  });

  it("without the new members the answer is the plain listing", async () => {
    const plain = await ok("GET", `/table/${tableId}/rows`, { token: t.viewer.token });
    expect(names(plain)).toEqual(["a", "b", "c", "d", "e"]);
    expect(plain.warnings).toBeUndefined();
  });
});

describe("queryRows: errors and access", () => {
  it("a bad filter is 422 naming the path", async () => {
    const res = await call("GET", `/table/${tableId}/rows`, {
      token: t.viewer.token,
      query: {
        filter: JSON.stringify({
          and: [
            { columnId: col.number, op: "eq", value: 1 },
            { columnId: col.number, op: "gt", value: "x" },
          ],
        }),
      },
    });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.details).toEqual([{ path: "filter.and.1.value", message: "a number" }]);
    for (const [filter, path] of [
      [{ and: [{ columnId: "nope", op: "eq", value: 1 }] }, "filter.and.0.columnId"],
      [{ and: [{ columnId: col.checkbox, op: "contains", value: "x" }] }, "filter.and.0.op"],
      [{ or: [{ columnId: col.select, op: "is", value: "Green" }] }, "filter.or.0.value"],
      [{ and: [{ and: [{ and: [{ and: [{ and: [{ and: [] }] }] }] }] }] }, "filter.and.0.and.0.and.0.and.0.and.0.and"],
      [[1], "filter"],
    ] as const) {
      const r = await call("POST", `/table/${tableId}/query`, { token: t.viewer.token, body: { filter } });
      expectError(r, 422, "UnprocessableEntityError");
      expect(r.body.details.map((d: { path: string }) => d.path)).toContain(path);
    }
  });

  it("a filter that is not JSON is 400", async () => {
    const res = await call("GET", `/table/${tableId}/rows`, { token: t.viewer.token, query: { filter: "{" } });
    expectError(res, 400, "ValidationError");
  });

  it("a caller who cannot read the project gets 404 and nothing", async () => {
    const stranger = await registerUser();
    const res = await call("POST", `/table/${tableId}/query`, {
      token: stranger.token,
      body: { filter: where("text", "eq", "banana") },
    });
    expectError(res, 404, "NotFoundError");
    expect(JSON.stringify(res.body)).not.toContain("banana");
  });
});
