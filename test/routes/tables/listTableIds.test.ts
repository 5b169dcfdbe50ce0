/** listTableIds: GET /table/all/{projectId}/id (src/routes/tables/listIds.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant, expectError } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";

/**
 * The table routes on the request path (issue 9, docs/api-guide.md › HTTP semantics: retries, caching, replicas) and issue 14's computed cells: strong ETags with 304
 * on table GET, E11, E16 and E15; If-Match with 412 and nothing changed on the writes of those records; the round
 * trips of E1, E11, E15, E16 and E19 asserted one by one; and row creation (single, bulk) and cell upserts
 * answering with the formula cells computed in that same request.
 */
async function warm(token: string) {
  // lastUsedAt is touched at most once a minute: spend that touch outside the measured call.
  await ok("GET", "/me", { token });
}

async function trips(method: string, path: string, token: string, body?: unknown) {
  const res = await call(method, path, { token, body });
  return { status: res.status, trips: Number(res.headers.get("x-d1-round-trips")), body: res.body };
}

describe("table routes on the request path", () => {
  let t: Tenant;
  let tok: string;
  let tableId: string;
  let nameCol: string;
  let qty: string;
  let price: string;
  let total: string;

  beforeAll(async () => {
    t = await seedTenant();
    tok = t.owner.token;
    const table = await makeTable(tok, t.projectId, "Orders");
    tableId = table.tableId;
    nameCol = table.nameColumnId;
    qty = (await addColumn(tok, tableId, "Qty", { type: "number" }))._id;
    price = (await addColumn(tok, tableId, "Price", { type: "number" }))._id;
    total = (await addColumn(tok, tableId, "Total", { type: "formula" }))._id;
    await ok("POST", `/table/column/${total}/computed/apply`, {
      token: tok,
      body: { description: [text("Qty * Price")], expression: op("*", col(qty), col(price)) },
    });
    await addRow(tok, tableId, { [nameCol]: "Pens", [qty]: 2, [price]: 3 });
  });

  describe("round trips (x-d1-round-trips, the token's touch spent beforehand)", () => {
    it("E19 costs 1; the rows list 1 (2 with oneMany columns); the reference listings 1", async () => {
      await warm(tok);
      for (const path of [
        `/table/all/${t.projectId}/id`,
        `/table/${tableId}/rows`,
        `/document/${t.docId}/table-references`,
        `/document/${t.docId}/clause-references`,
      ]) {
        const r = await trips("GET", path, tok);
        expect({ path, status: r.status, trips: r.trips }).toEqual({ path, status: 200, trips: 1 });
      }
      const e19 = await trips("GET", `/table/all/${t.projectId}/id`, tok);
      expect(e19.body.data.map((x: any) => x._id)).toContain(tableId);
      const { tableId: other } = await makeTable(tok, t.projectId, "Related");
      await addColumn(tok, tableId, "Others", {
        type: "oneMany",
        oneMany: { tableId: other, filter: [], filterConjunction: "and" },
      });
      await warm(tok);
      expect((await trips("GET", `/table/${tableId}/rows`, tok)).trips).toBe(2);
    });
  });
});

describe("tables", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  describe("tables", () => {
    it("E19 lists the project's live table ids newest first", async () => {
      const project = await ok("POST", "/project", {
        token: t.owner.token,
        body: { workspaceId: t.workspaceId, name: "E19" },
      });
      const pid = project.data._id;
      const a = await makeTable(t.owner.token, pid, "A");
      const b = await makeTable(t.owner.token, pid, "B");
      const c = await makeTable(t.owner.token, pid, "C");
      await ok("DELETE", `/table/${b.tableId}`, { token: t.owner.token });
      const res = await ok("GET", `/table/all/${pid}/id`, { token: t.viewer.token });
      expect(res).toEqual({ data: [{ _id: c.tableId }, { _id: a.tableId }] });
      expect(await ok("GET", `/table/all/${pid}/id`, { token: t.owner.token })).toEqual(res);
      expectError(await call("GET", `/table/all/${pid}/id`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/table/all/01NOPE/id", { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", "/table/all/b@d/id", { token: t.owner.token }), 400, "ValidationError");
    });
  });
});
