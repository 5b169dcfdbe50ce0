import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("columns", () => {
  it("creates every column type with its options", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Types");
    const target = await makeTable(t.owner.token, t.projectId, "Target");
    const items = [
      { id: "a", label: "A", color: "red" },
      { id: "b", label: "B", color: "blue" },
    ];
    const datas: Record<string, unknown>[] = [
      { type: "text" },
      { type: "number", number: { format: "currency", decimalPlaces: 2, aggregation: "sum" } },
      { type: "checkbox" },
      { type: "date" },
      { type: "select", selectItems: items },
      { type: "multiSelect", selectItems: items },
      { type: "url" },
      { type: "email" },
      { type: "formula" },
      {
        type: "oneMany",
        oneMany: {
          tableId: target.tableId,
          filter: [{ targetColumnId: target.nameColumnId, op: "isNotEmpty" }],
          filterConjunction: "or",
        },
      },
      { type: "text", width: 240 },
    ];
    for (const data of datas) {
      const col = await addColumn(t.editor.token, tableId, `Col ${data.type}`, data);
      expect(col).toMatchObject({
        tableId,
        projectId: t.projectId,
        workspaceId: t.workspaceId,
        isIdentifier: false,
        isDeleted: false,
        data,
      });
      expect(Object.keys(col).sort()).toEqual(
        [
          "_id",
          "projectId",
          "tableId",
          "workspaceId",
          "name",
          "slug",
          "originId",
          "description",
          "isIdentifier",
          "data",
          "createdAt",
          "updatedAt",
          "isDeleted",
        ].sort(),
      );
    }
    const list = await ok("GET", `/table/columns/${tableId}`, { token: t.viewer.token });
    expect(list.data.map((c: any) => c.data.type)).toEqual(["identifier", ...datas.map((d) => d.type)]);
    const select = await addColumn(t.owner.token, tableId, "Empty select", { type: "select" });
    expect(select.data).toEqual({ type: "select", selectItems: [] });
    const om = await addColumn(t.owner.token, tableId, "Default conj", {
      type: "oneMany",
      oneMany: { tableId: target.tableId, filter: [] },
    });
    expect(om.data.oneMany.filterConjunction).toBe("and");
  });

  it("derives unique slugs and re-derives them on rename", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Slugs");
    const a = await addColumn(t.owner.token, tableId, "Name", { type: "text" });
    const b = await addColumn(t.owner.token, tableId, "name", { type: "text" });
    const c = await addColumn(t.owner.token, tableId, "Crème Brûlée & Co.", { type: "text" });
    const d = await addColumn(t.owner.token, tableId, "!!!", { type: "text" });
    expect([a.slug, b.slug, c.slug, d.slug]).toEqual(["name-2", "name-3", "creme-brulee-co", "column"]);
    const renamed = await ok("PATCH", `/table/column/${b._id}`, {
      token: t.owner.token,
      body: { name: "Crème brûlée co" },
    });
    expect(renamed.data).toMatchObject({ name: "Crème brûlée co", slug: "creme-brulee-co-2" });
    const same = await ok("PATCH", `/table/column/${c._id}`, {
      token: t.owner.token,
      body: { name: "Creme Brulee Co" },
    });
    expect(same.data.slug).toBe("creme-brulee-co");
    // A deleted column's slug stays taken.
    await ok("DELETE", `/table/column/${a._id}`, { token: t.owner.token });
    expect((await addColumn(t.owner.token, tableId, "Name", { type: "text" })).slug).toBe("name-3");
  });

  it("runs concurrent creates of the same name to distinct slugs", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Race");
    const cols = await Promise.all([1, 2, 3, 4].map(() => addColumn(t.owner.token, tableId, "Same", { type: "text" })));
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
          oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "in", value: "x" }] },
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
      const res = await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Bad", data } });
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

  it("keeps exactly one identifier column (409)", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Ident");
    expectError(
      await call("POST", `/table/${tableId}/column`, {
        token: t.owner.token,
        body: { name: "Id2", data: { type: "identifier" } },
      }),
      409,
      "ConflictError",
    );
    expectError(
      await call("PATCH", `/table/column/${nameColumnId}`, { token: t.owner.token, body: { data: { type: "text" } } }),
      409,
      "ConflictError",
    );
    const text = await addColumn(t.owner.token, tableId, "Text", { type: "text" });
    expectError(
      await call("PATCH", `/table/column/${text._id}`, {
        token: t.owner.token,
        body: { data: { type: "identifier" } },
      }),
      409,
      "ConflictError",
    );
    expectError(await call("DELETE", `/table/column/${nameColumnId}`, { token: t.owner.token }), 409, "ConflictError");
    const renamed = await ok("PATCH", `/table/column/${nameColumnId}`, {
      token: t.owner.token,
      body: { name: "Title", data: { type: "identifier" } },
    });
    expect(renamed.data).toMatchObject({ name: "Title", slug: "title", isIdentifier: true });
  });

  it("patches description and data, keeping stored values across a type change", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Patch");
    const col = await addColumn(t.owner.token, tableId, "Score", { type: "number" });
    const row = await addRow(t.owner.token, tableId, { [col._id]: 7 });
    const patched = await ok("PATCH", `/table/column/${col._id}`, {
      token: t.editor.token,
      body: { ...col, description: "Points", data: { type: "text" } },
    });
    expect(patched.data).toMatchObject({ name: "Score", slug: "score", description: "Points", data: { type: "text" } });
    const rows = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(rows.data[0].cells[col._id]).toBe(7);
    // Writes now follow the new type.
    expectError(
      await call("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: 8 } }),
      400,
      "ValidationError",
    );
    await ok("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: "eight" } });
    expectError(
      await call("PATCH", `/table/column/${col._id}`, {
        token: t.owner.token,
        body: {
          data: {
            type: "select",
            selectItems: [
              { id: "x", label: "X", color: "c" },
              { id: "x", label: "Y", color: "c" },
            ],
          },
        },
      }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { slug: "x", bogus: 1 } }),
      400,
      "ValidationError",
    );
  });

  it("soft-deletes columns: gone from E11, from rows, and their cells 404", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "DelCol");
    const col = await addColumn(t.owner.token, tableId, "Gone", { type: "text" });
    const row = await addRow(t.owner.token, tableId, { [col._id]: "v" });
    const cellId = row.cells.find((c: any) => c.columnId === col._id)._id;
    await ok("GET", `/table/cell/${cellId}`, { token: t.owner.token });
    await ok("DELETE", `/table/column/${col._id}`, { token: t.editor.token });
    const cols = await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token });
    expect(cols.data.map((c: any) => c._id)).not.toContain(col._id);
    const rows = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(Object.keys(rows.data[0].cells)).not.toContain(col._id);
    expectError(await call("GET", `/table/cell/${cellId}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/table/column/${col._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(
      await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: "w" } }),
      404,
      "NotFoundError",
    );
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
      await call("POST", "/table/01NOPE/column", { token: t.owner.token, body: { name: "x", data: { type: "text" } } }),
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
