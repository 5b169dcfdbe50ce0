/**
 * POST /table/{tableId}/rows/restore (docs/api-guide.md › Bulk writes): deleted rows back with their cells, all or
 * nothing; lookups in another table follow every bulk write (update, delete, restore) before it answers.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, bulkRows, makeTable, type TestTable } from "../../support/tableHarness";

let t: Tenant;
let products: TestTable;
let orders: TestTable;
let price: string;
let total: string;
const ids: string[] = [];
let orderId: string;

beforeAll(async () => {
  t = await seedTenant();
  const tok = t.owner.token;
  products = await makeTable(tok, t.projectId, "Products");
  orders = await makeTable(tok, t.projectId, "Orders");
  price = (await addColumn(tok, products.tableId, "Price", { type: "number" }))._id;
  const kind = (await addColumn(tok, products.tableId, "Kind", { type: "text" }))._id;
  const wants = (await addColumn(tok, orders.tableId, "Wants", { type: "text" }))._id;
  await addColumn(tok, orders.tableId, "Items", {
    type: "oneMany",
    oneMany: { tableId: products.tableId, filter: [{ targetColumnId: kind, op: "eq", sourceColumnId: wants }] },
  });
  total = (
    await addColumn(tok, orders.tableId, "Total", {
      type: "formula",
      formula: { text: "SUM(LOOKUP({Items}, {Price}))" },
    })
  )._id;
  const rows = await bulkRows(
    tok,
    products.tableId,
    [1, 2, 3, 4].map((p) => ({ [products.nameColumnId]: `p${p}`, [price]: p, [kind]: "tools" })),
  );
  ids.push(...rows.map((r) => r._id));
  orderId = (await bulkRows(tok, orders.tableId, [{ [orders.nameColumnId]: "A", [wants]: "tools" }]))[0]._id;
});

const totalOfOrder = async () =>
  (await allRows(t.viewer.token, orders.tableId)).find((r) => r._id === orderId).cells[total];
const restore = (list: string[], token = t.editor.token, headers: Record<string, string> = {}) =>
  call("POST", `/table/${products.tableId}/rows/restore`, { token, body: { ids: list }, headers });

describe("POST /table/{tableId}/rows/restore", () => {
  it("lookups follow a bulk update, a bulk delete and a restore, each before it answers", async () => {
    expect(await totalOfOrder()).toBe(10);
    await ok("PATCH", `/table/${products.tableId}/rows`, {
      token: t.editor.token,
      body: {
        rows: [
          { _id: ids[0], cells: { [price]: 100 } },
          { _id: ids[1], cells: { [price]: 200 } },
        ],
      },
    });
    expect(await totalOfOrder()).toBe(307);
    await ok("POST", `/table/${products.tableId}/rows/delete`, {
      token: t.editor.token,
      body: { ids: ids.slice(0, 2) },
    });
    expect(await totalOfOrder()).toBe(7);
    const res = await restore(ids.slice(0, 2));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { ids: ids.slice(0, 2) } });
    expect(await totalOfOrder()).toBe(307);
    const back = (await allRows(t.viewer.token, products.tableId)).find((r) => r._id === ids[1]);
    expect(back.cells[price]).toBe(200);
  });

  it("a live or unknown id is 404 naming it, and nothing is restored", async () => {
    await ok("POST", `/table/${products.tableId}/rows/delete`, { token: t.editor.token, body: { ids: [ids[3]] } });
    const res = await restore([ids[3]!, ids[2]!]);
    expectError(res, 404, "NotFoundError");
    expect(res.body.details).toEqual([{ path: "ids.1", message: expect.any(String) }]);
    expectError(await restore([ids[3]!, "missing"]), 404, "NotFoundError");
    expect((await allRows(t.owner.token, products.tableId)).some((r) => r._id === ids[3])).toBe(false);
  });

  it("a viewer is 403, an outsider 404; a keyed restore replays", async () => {
    expectError(await restore([ids[3]!], t.viewer.token), 403, "ForbiddenError");
    expectError(await restore([ids[3]!], t.outsider.token), 404, "NotFoundError");
    const key = `bulk-restore-${Date.now()}`;
    expect((await restore([ids[3]!], t.editor.token, { "idempotency-key": key })).status).toBe(200);
    const again = await restore([ids[3]!], t.editor.token, { "idempotency-key": key });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual({ data: { ids: [ids[3]] } });
  });
});
