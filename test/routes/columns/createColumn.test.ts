/** createColumn: POST /table/{tableId}/column (src/routes/columns/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, makeTable } from "../../support/tableHarness";
import { textFormulaOrdersFixture } from "../../support/orders";

describe("columns", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  describe("columns", () => {
    it("runs concurrent creates of the same name to distinct slugs", async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, "Race");
      const cols = await Promise.all(
        [1, 2, 3, 4].map(() => addColumn(t.owner.token, tableId, "Same", { type: "text" })),
      );
      expect(new Set(cols.map((c) => c.slug)).size).toBe(4);
    });

    it("rejects invalid column data with 400", async () => {
      const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Invalid");
      const target = await makeTable(t.owner.token, t.projectId, "Target2");
      const otherProject = await ok("POST", "/project", {
        token: t.owner.token,
        body: { workspaceId: t.workspaceId, name: "Elsewhere" },
      });
      const foreign = await makeTable(t.owner.token, otherProject.data._id, "Foreign");
      const relation = await addColumn(t.owner.token, target.tableId, "Rel", {
        type: "oneMany",
        oneMany: { tableId, filter: [] },
      });
      const bad: [unknown, string?][] = [
        [{ type: "nope" }],
        [{}],
        [
          {
            type: "select",
            selectItems: [
              { id: "a", label: "A", color: "r" },
              { id: "a", label: "B", color: "b" },
            ],
          },
          "data.selectItems.1.id",
        ],
        [{ type: "select", selectItems: [{ id: "a b", label: "A", color: "r" }] }],
        [{ type: "number", number: { decimalPlaces: 21 } }],
        [{ type: "number", number: { decimalPlaces: 1.5 } }],
        [{ type: "number", number: { aggregation: "explode" } }],
        [{ type: "oneMany" }],
        [
          {
            type: "oneMany",
            oneMany: {
              tableId: target.tableId,
              filter: [{ targetColumnId: target.nameColumnId, op: "like", value: "x" }],
            },
          },
        ],
        [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [], filterConjunction: "xor" } }],
        [
          {
            type: "oneMany",
            oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "eq" }] },
          },
        ],
        [
          {
            type: "oneMany",
            oneMany: {
              tableId: target.tableId,
              filter: [{ targetColumnId: target.nameColumnId, op: "eq", value: "x", sourceColumnId: nameColumnId }],
            },
          },
        ],
        [
          {
            type: "oneMany",
            oneMany: {
              tableId: target.tableId,
              filter: [{ targetColumnId: target.nameColumnId, op: "in", value: "x" }],
            },
          },
        ],
        [{ type: "oneMany", oneMany: { tableId: foreign.tableId, filter: [] } }, "data.oneMany.tableId"],
        [{ type: "oneMany", oneMany: { tableId: "01NOPE", filter: [] } }, "data.oneMany.tableId"],
        [
          {
            type: "oneMany",
            oneMany: { tableId: target.tableId, filter: [{ targetColumnId: nameColumnId, op: "eq", value: "x" }] },
          },
          "data.oneMany.filter.0.targetColumnId",
        ],
        [
          {
            type: "oneMany",
            oneMany: {
              tableId: target.tableId,
              filter: [{ targetColumnId: target.nameColumnId, op: "eq", sourceColumnId: target.nameColumnId }],
            },
          },
          "data.oneMany.filter.0.sourceColumnId",
        ],
        [
          {
            type: "oneMany",
            oneMany: { tableId: target.tableId, filter: [{ targetColumnId: relation._id, op: "isEmpty" }] },
          },
          "data.oneMany.filter.0.targetColumnId",
        ],
      ];
      for (const [data, path] of bad) {
        const res = await call("POST", `/table/${tableId}/column`, {
          token: t.owner.token,
          body: { name: "Bad", data },
        });
        expectError(res, 400, "ValidationError");
        if (path)
          expect(
            res.body.details.map((d: any) => d.path),
            JSON.stringify(data),
          ).toContain(path);
      }
      expectError(
        await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Bad" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/table/${tableId}/column`, {
          token: t.owner.token,
          body: { name: "Bad", data: { type: "text" }, x: 1 },
        }),
        400,
        "ValidationError",
      );
      const cols = await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token });
      expect(cols.data).toHaveLength(1);
    });

    it("guards column routes: viewer 403, outsider 404, missing 404, bad ids 400", async () => {
      const { tableId } = await makeTable(t.owner.token, t.projectId, "Guard");
      const col = await addColumn(t.owner.token, tableId, "C", { type: "text" });
      expectError(
        await call("POST", `/table/${tableId}/column`, {
          token: t.viewer.token,
          body: { name: "x", data: { type: "text" } },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/table/column/${col._id}`, { token: t.viewer.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(await call("DELETE", `/table/column/${col._id}`, { token: t.viewer.token }), 403, "ForbiddenError");
      expectError(
        await call("POST", `/table/${tableId}/column`, {
          token: t.outsider.token,
          body: { name: "x", data: { type: "text" } },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PATCH", `/table/column/${col._id}`, { token: t.outsider.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(await call("GET", `/table/columns/${tableId}`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/table/columns/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
      expectError(
        await call("POST", "/table/01NOPE/column", {
          token: t.owner.token,
          body: { name: "x", data: { type: "text" } },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PATCH", "/table/column/01NOPE", { token: t.owner.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(await call("GET", "/table/columns/no%20pe", { token: t.owner.token }), 400, "ValidationError");
    });
  });
});

/** Formulas as people type them: POST /formula/parse, column writes with `formula: { text }`, E3 with `text`. */
describe("formulas as text over HTTP", () => {
  let t: Tenant;
  let tableId: string;

  beforeAll(async () => {
    ({ t, tableId } = await textFormulaOrdersFixture());
  });

  it("refuses a bad formula, or an unknown member of a formula column's data, and creates nothing", async () => {
    const bad = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Bad", data: { type: "formula", formula: { text: "{Nope} * 2" } } },
    });
    expectError(bad, 422, "UnprocessableEntityError");
    expect(bad.body.details[0]).toMatchObject({ path: "data.formula.text", line: 1, column: 1 });
    const typo = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Typo", data: { type: "formula", fromula: { text: "1" } } },
    });
    expectError(typo, 400, "ValidationError");
    const wrongType = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Wrong", data: { type: "number", formula: { text: "1" } } },
    });
    expectError(wrongType, 400, "ValidationError");
    const empty = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Empty", data: { type: "formula", formula: {} } },
    });
    expectError(empty, 400, "ValidationError");
    const self = await call("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Self", data: { type: "formula", formula: { text: "{Self} + 1" } } },
    });
    expectError(self, 422, "UnprocessableEntityError");
    const names = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.map((c: any) => c.name);
    expect(names).not.toContain("Bad");
    expect(names).not.toContain("Typo");
    expect(names).not.toContain("Wrong");
    expect(names).not.toContain("Self");
  });
});
