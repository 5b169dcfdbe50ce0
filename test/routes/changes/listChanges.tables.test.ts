/** The change feed's `table.*` and `column.*` entries (docs/api-guide.md › Changes, history and audit). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const structural = async (tableId: string) =>
  ((await ok("GET", `/changes?tableId=${tableId}&limit=1000`, { token: t.owner.token })).data as any[]).filter(
    (e) => !e.kind.startsWith("row."),
  );
const summary = (entries: any[]) => entries.map((e) => [e.kind, e.recordId]);

describe("table and column entries", () => {
  it("a table's creation, rename and delete, each once; a rename to the same name and a stale If-Match record nothing", async () => {
    const table = await makeTable(t.editor.token, t.projectId, "Old");
    await ok("PATCH", `/table/${table.tableId}`, { token: t.editor.token, body: { name: "New" } });
    await ok("PATCH", `/table/${table.tableId}`, { token: t.editor.token, body: { name: "New" } });
    const stale = await call("PATCH", `/table/${table.tableId}`, {
      token: t.editor.token,
      headers: { "if-match": '"stale"' },
      body: { name: "Never" },
    });
    expect(stale.status).toBe(412);
    const before = await structural(table.tableId);
    expect((await call("DELETE", `/table/${table.tableId}`, { token: t.owner.token })).status).toBeLessThan(300);
    expect(summary(before)).toEqual([
      ["table.created", table.tableId],
      ["column.created", table.nameColumnId],
      ["table.updated", table.tableId],
    ]);
    expect(before[0].changes).toEqual({ name: { before: null, after: "Old" } });
    expect(before[1].changes).toMatchObject({ name: { before: null, after: "Name" }, type: { after: "identifier" } });
    expect(before[2].changes).toEqual({ name: { before: "Old", after: "New" } });
    expect(before[2]).toMatchObject({ tableId: table.tableId, actor: { userId: t.editor.id }, source: "api" });
    // A deleted table's feed is no longer readable by its id; the project's feed has the tombstone.
    const project = (await ok("GET", `/changes?projectId=${t.projectId}&limit=1000`, { token: t.owner.token }))
      .data as any[];
    const tombstones = project.filter((e) => e.kind === "table.deleted" && e.recordId === table.tableId);
    expect(tombstones).toHaveLength(1);
    expect(tombstones[0].changes).toBeUndefined();
  });

  it("a column's creation, each change with before and after, and its delete; nothing for a no-op", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Columns");
    const col = await addColumn(t.owner.token, table.tableId, "Qty", { type: "number" });
    await ok("PATCH", `/table/column/${col._id}`, {
      token: t.owner.token,
      body: { name: "Quantity", description: "How many" },
    });
    await ok("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { description: "How many" } });
    await ok("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { data: { type: "text" } } });
    await call("DELETE", `/table/column/${col._id}`, { token: t.owner.token });
    await call("DELETE", `/table/column/${col._id}`, { token: t.owner.token });
    const entries = (await structural(table.tableId)).filter((e) => e.recordId === col._id);
    expect(entries.map((e) => e.kind)).toEqual([
      "column.created",
      "column.updated",
      "column.updated",
      "column.deleted",
    ]);
    expect(entries[0].changes).toMatchObject({ name: { before: null, after: "Qty" }, type: { after: "number" } });
    expect(entries[1].changes).toEqual({
      name: { before: "Qty", after: "Quantity" },
      slug: { before: "qty", after: "quantity" },
      description: { before: "", after: "How many" },
    });
    expect(entries[2].changes.data.before).toMatchObject({ type: "number" });
    expect(entries[2].changes.data.after).toMatchObject({ type: "text" });
    expect(entries[3].changes).toBeUndefined();
  });
});

describe("formula column entries", () => {
  it("a formula column records its creation and then the formula applied to it, once", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Formulas");
    const qty = await addColumn(t.owner.token, table.tableId, "Qty", { type: "number" });
    const twice = await addColumn(t.owner.token, table.tableId, "Twice", {
      type: "formula",
      formula: { text: "{Qty} * 2" },
    });
    const entries = (await structural(table.tableId)).filter((e) => e.recordId === twice._id);
    expect(entries.map((e) => e.kind)).toEqual(["column.created", "column.updated"]);
    expect(entries[0].changes.type).toEqual({ before: null, after: "formula" });
    expect(Object.keys(entries[1].changes)).toEqual(["formula"]);
    expect(entries[1]).toMatchObject({ actor: { type: "system" }, source: "api" });
    expect(entries[1].changes.formula.before).toBeNull();
    expect(JSON.stringify(entries[1].changes.formula.after)).toContain(qty._id);
  });
});

describe("CSV import entries", () => {
  const importCsv = (tableId: string, raw: string, query: Record<string, string> = {}) =>
    call("POST", `/table/${tableId}/import`, {
      token: t.editor.token,
      raw,
      headers: { "content-type": "text/csv" },
      query,
    });

  it("one row.created per imported row with its values, and column.created for a new column, all source import", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Imported");
    const res = await importCsv(table.tableId, "Name,Color\nA,red\nB,\n");
    expect(res.status).toBe(200);
    const colorId = res.body.data.columns.find((c: any) => c.header === "Color").columnId;
    const entries = (await ok("GET", `/changes?tableId=${table.tableId}&limit=1000`, { token: t.owner.token }))
      .data as any[];
    const imported = entries.filter((e) => e.source === "import");
    expect(imported.map((e) => e.kind).sort()).toEqual(["column.created", "row.created", "row.created"]);
    const rows = imported.filter((e) => e.kind === "row.created").map((e) => e.changes);
    expect(rows).toContainEqual({
      [table.nameColumnId]: { before: null, after: "A" },
      [colorId]: { before: null, after: "red" },
    });
    expect(rows).toContainEqual({ [table.nameColumnId]: { before: null, after: "B" } });
    expect(imported[0].actor).toMatchObject({ type: "user", userId: t.editor.id });
  });

  it("an atomic import that fails records no row, and the column it created and removed again as deleted", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Refused import");
    await addColumn(t.owner.token, table.tableId, "Qty", { type: "number" });
    const res = await importCsv(table.tableId, "Name,Qty,Extra\nA,1,x\nB,not a number,y\n", { mode: "atomic" });
    expect(res.status).toBe(422);
    const entries = (await ok("GET", `/changes?tableId=${table.tableId}&limit=1000`, { token: t.owner.token }))
      .data as any[];
    expect(entries.filter((e) => e.kind.startsWith("row."))).toEqual([]);
    const imported = entries.filter((e) => e.source === "import");
    expect(imported.map((e) => e.kind)).toEqual(["column.created", "column.deleted"]);
    expect(imported[0].recordId).toBe(imported[1].recordId);
    expect(imported[0].changes.name.after).toBe("Extra");
  });
});
