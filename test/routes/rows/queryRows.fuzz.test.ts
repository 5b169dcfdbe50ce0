/**
 * Property test of row filters (docs/api-guide.md › Querying rows): random filter trees — valid and broken, over
 * every column type and operator, with hostile values — sent to POST /table/{tableId}/query and GET …/rows never
 * answer 5xx; every answer is 200, 400 or 422, and a 200 holds only rows of the table.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, bulkRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
let tableId: string;
let columnIds: string[] = [];
const OPS = ["eq", "neq", "lt", "lte", "gt", "gte", "between", "contains", "notContains", "startsWith", "isEmpty"];
OPS.push("isNotEmpty", "is", "isNot", "isAnyOf", "isNoneOf", "hasAny", "hasAll", "hasNone", "in", "bogus");

beforeAll(async () => {
  t = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Fuzz");
  tableId = table.tableId;
  const items = [{ id: "x", label: "X", color: "" }];
  columnIds = [table.nameColumnId];
  for (const data of [
    { type: "text" },
    { type: "number" },
    { type: "date" },
    { type: "checkbox" },
    { type: "select", selectItems: items },
    { type: "multiSelect", selectItems: items },
    { type: "formula", formula: { text: "LEN({Name})" } },
    { type: "oneMany", oneMany: { tableId, filter: [{ targetColumnId: table.nameColumnId, op: "eq", value: "a" }] } },
  ])
    columnIds.push((await addColumn(t.owner.token, tableId, `c-${data.type}`, data))._id);
  await bulkRows(t.owner.token, tableId, [{ [table.nameColumnId]: "a", [columnIds[2]!]: 3, [columnIds[5]!]: "x" }, {}]);
});

const value = fc.oneof(
  fc.string({ maxLength: 12 }),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("x", "X", "%", "_", "\\", "'", '"'),
  fc.array(fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.constant("x")), { maxLength: 4 }),
  fc.record({
    relative: fc.constantFrom("today", "pastDays", "nextDays", "soon"),
    days: fc.integer({ min: -5, max: 200_000 }),
  }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
);

const filterTree = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    tie("cond"),
    tie("group"),
    fc.jsonValue({ maxDepth: 2 }),
  ),
  cond: fc.record(
    {
      columnId: fc.oneof(
        fc.constantFrom(...Array.from({ length: 9 }, (_, i) => i)).map((i) => columnIds[i] ?? "nope"),
        fc.string(),
      ),
      op: fc.constantFrom(...OPS),
      value,
    },
    { requiredKeys: [] },
  ),
  group: fc.oneof(
    fc.record({ and: fc.array(tie("node"), { maxLength: 4 }) }),
    fc.record({ or: fc.array(tie("node"), { maxLength: 4 }) }),
  ),
}));

describe("queryRows filter fuzz", () => {
  it("never answers 5xx to any filter tree", async () => {
    await fc.assert(
      fc.asyncProperty(filterTree.group, fc.boolean(), async (filter, viaGet) => {
        const res = viaGet
          ? await call("GET", `/table/${tableId}/rows`, {
              token: t.viewer.token,
              query: { filter: JSON.stringify(filter), sort: JSON.stringify([{ columnId: columnIds[2] }]) },
            })
          : await call("POST", `/table/${tableId}/query`, { token: t.viewer.token, body: { filter } });
        expect([200, 400, 422], JSON.stringify({ filter, body: res.body })).toContain(res.status);
        if (res.status === 200) for (const r of res.body.data) expect(r.tableId).toBe(tableId);
      }),
      { numRuns: 150 },
    );
  });
});
