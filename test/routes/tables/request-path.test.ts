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
    it("PATCH and DELETE table", async () => {
      const { tableId: id } = await makeTable(tok, t.projectId, "Guarded");
      const get = await call("GET", `/table/${id}`, { token: tok });
      const stale = await call("PATCH", `/table/${id}`, {
        token: tok,
        body: { name: "Changed" },
        headers: { "if-match": STALE },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.error).toBe("PreconditionFailedError");
      const del = await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": STALE } });
      expect(del.status).toBe(412);
      const unchanged = await call("GET", `/table/${id}`, { token: tok });
      expect(unchanged.body.data.name).toBe("Guarded");
      expect(unchanged.headers.get("etag")).toBe(get.headers.get("etag"));

      const patched = await call("PATCH", `/table/${id}`, {
        token: tok,
        body: { name: "Changed" },
        headers: { "if-match": get.headers.get("etag")! },
      });
      expect(patched.status).toBe(200);
      // The write answers with the new ETag, which is the GET's.
      const now = await call("GET", `/table/${id}`, { token: tok });
      expect(patched.headers.get("etag")).toBe(now.headers.get("etag"));
      // The old tag no longer matches.
      expect(
        (await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": get.headers.get("etag")! } }))
          .status,
      ).toBe(412);
      expect(
        (await call("DELETE", `/table/${id}`, { token: tok, headers: { "if-match": now.headers.get("etag")! } }))
          .status,
      ).toBe(200);
      expect((await call("GET", `/table/${id}`, { token: tok })).status).toBe(404);
    });

    it("PATCH and DELETE column (E11's tag or the column's own)", async () => {
      const { tableId: id } = await makeTable(tok, t.projectId, "Cols");
      const column = await call("POST", `/table/${id}/column`, {
        token: tok,
        body: { name: "Color", data: { type: "text" } },
      });
      const columnId = column.body.data._id;
      const list = await call("GET", `/table/columns/${id}`, { token: tok });
      expect(
        (
          await call("PATCH", `/table/column/${columnId}`, {
            token: tok,
            body: { name: "Colour" },
            headers: { "if-match": STALE },
          })
        ).status,
      ).toBe(412);
      expect(
        (await call("DELETE", `/table/column/${columnId}`, { token: tok, headers: { "if-match": STALE } })).status,
      ).toBe(412);
      const unchanged = await call("GET", `/table/columns/${id}`, { token: tok });
      expect(unchanged.headers.get("etag")).toBe(list.headers.get("etag"));
      expect(unchanged.body.data.map((c: any) => c.name)).toEqual(["Name", "Color"]);

      // E11's ETag is accepted …
      const renamed = await call("PATCH", `/table/column/${columnId}`, {
        token: tok,
        body: { name: "Colour" },
        headers: { "if-match": list.headers.get("etag")! },
      });
      expect(renamed.status).toBe(200);
      // … and then stale, while the column's own tag from the PATCH response is current.
      expect(
        (
          await call("DELETE", `/table/column/${columnId}`, {
            token: tok,
            headers: { "if-match": list.headers.get("etag")! },
          })
        ).status,
      ).toBe(412);
      expect(
        (
          await call("DELETE", `/table/column/${columnId}`, {
            token: tok,
            headers: { "if-match": column.headers.get("etag")! },
          })
        ).status,
      ).toBe(412);
      expect(
        (
          await call("DELETE", `/table/column/${columnId}`, {
            token: tok,
            headers: { "if-match": renamed.headers.get("etag")! },
          })
        ).status,
      ).toBe(200);
      expect((await ok("GET", `/table/columns/${id}`, { token: tok })).data.map((c: any) => c.name)).toEqual(["Name"]);
    });

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

    it("DELETE row", async () => {
      const row = (await addRow(tok, tableId, { [nameCol]: "Doomed" })).row;
      const get = await call("GET", `/table/row/${row._id}`, { token: tok });
      expect(
        (await call("DELETE", `/table/row/${row._id}`, { token: tok, headers: { "if-match": STALE } })).status,
      ).toBe(412);
      const still = await call("GET", `/table/row/${row._id}`, { token: tok });
      expect(still.status).toBe(200);
      expect(still.headers.get("etag")).toBe(get.headers.get("etag"));
      expect(
        (
          await call("DELETE", `/table/row/${row._id}`, {
            token: tok,
            headers: { "if-match": get.headers.get("etag")! },
          })
        ).status,
      ).toBe(200);
      expect((await call("GET", `/table/row/${row._id}`, { token: tok })).status).toBe(404);
    });

    it("PUT cell", async () => {
      const created = await addRow(tok, tableId, { [nameCol]: "Cups", [qty]: 1, [price]: 4 });
      const cell = created.cells.find((c: any) => c.columnId === qty);
      const get = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      const stale = await call("PUT", `/table/row/${created.row._id}/cell/${qty}`, {
        token: tok,
        body: { data: 9 },
        headers: { "if-match": STALE },
      });
      expect(stale.status).toBe(412);
      const unchanged = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      expect(unchanged.body.data.data).toBe(1);
      expect(unchanged.headers.get("etag")).toBe(get.headers.get("etag"));
      // No cell yet: nothing to match.
      expect(
        (
          await call("PUT", `/table/row/${created.row._id}/cell/${price}`, {
            token: tok,
            body: { data: 1 },
            headers: { "if-match": STALE },
          })
        ).status,
      ).toBe(412);

      const put = await call("PUT", `/table/row/${created.row._id}/cell/${qty}`, {
        token: tok,
        body: { data: 9 },
        headers: { "if-match": get.headers.get("etag")! },
      });
      expect(put.status).toBe(200);
      const now = await call("GET", `/table/cell/${cell._id}`, { token: tok });
      expect(now.body.data.data).toBe(9);
      expect(put.headers.get("etag")).toBe(now.headers.get("etag"));
    });
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

  describe("issue 14: row writes answer with the formula cells computed in the request", () => {
    it("POST row: the stored Cell records include the computed formula cells", async () => {
      const res = await ok("POST", `/table/${tableId}/row`, {
        token: tok,
        body: { cells: { [nameCol]: "Ink", [qty]: 4, [price]: 2.5 } },
      });
      const totalCell = res.data.cells.find((c: any) => c.columnId === total);
      expect(totalCell).toMatchObject({ rowId: res.data.row._id, tableId, data: 10, isDeleted: false });
      // The record is the stored one: E15 returns it as is.
      expect((await ok("GET", `/table/cell/${totalCell._id}`, { token: tok })).data).toEqual(totalCell);
      expect(res.data.cells.map((c: any) => c.columnId)).toEqual(
        [...res.data.cells.map((c: any) => c.columnId)].sort(),
      );
    });

    it("POST rows: each row's cells carry its formula values", async () => {
      const res = await ok("POST", `/table/${tableId}/rows`, {
        token: tok,
        body: { rows: [{ cells: { [qty]: 2, [price]: 5 } }, { cells: { [qty]: 3 } }, { cells: {} }] },
      });
      expect(res.data.rows.map((r: any) => r.cells[total])).toEqual([10, 0, 0]);
      expect(res.data.rows[0].cells[qty]).toBe(2);
    });

    it("PUT cell: the row's formula cells beside the cell", async () => {
      const created = await ok("POST", `/table/${tableId}/row`, {
        token: tok,
        body: { cells: { [qty]: 1, [price]: 7 } },
      });
      const res = await ok("PUT", `/table/row/${created.data.row._id}/cell/${qty}`, { token: tok, body: { data: 6 } });
      expect(res.data).toMatchObject({ columnId: qty, data: 6 });
      expect(res.formulaCells).toEqual({ [total]: 42 });
    });
  });
});
