/** listColumns: GET /table/columns/{tableId} (src/routes/columns/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, makeTable } from "../../support/tableHarness";

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
});
