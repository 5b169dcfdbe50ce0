/** updateColumn: PATCH /table/column/{columnId} (src/routes/columns/update.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable, allRows } from "../../support/tableHarness";
import { col, op } from "../../support/formula/expr";
import { ordersFixture, textFormulaOrdersFixture } from "../../support/orders";

describe("columns", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
  });

  describe("columns", () => {
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
        await call("PATCH", `/table/column/${nameColumnId}`, {
          token: t.owner.token,
          body: { data: { type: "text" } },
        }),
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
      expectError(
        await call("DELETE", `/table/column/${nameColumnId}`, { token: t.owner.token }),
        409,
        "ConflictError",
      );
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
      expect(patched.data).toMatchObject({
        name: "Score",
        slug: "score",
        description: "Points",
        data: { type: "text" },
      });
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
  });
});

/** Formulas as people type them: POST /formula/parse, column writes with `formula: { text }`, E3 with `text`. */
describe("formulas as text over HTTP", () => {
  let t: Tenant;
  let tableId: string;
  let price: string;
  let qty: string;

  beforeAll(async () => {
    ({ t, tableId, price, qty } = await textFormulaOrdersFixture());
  });

  it("creates a formula column from text, computes it, and returns text, tree and result type", async () => {
    const created = await ok("POST", `/table/${tableId}/column`, {
      token: t.owner.token,
      body: { name: "Total", data: { type: "formula", formula: { text: "{price} * {qty}" } } },
    });
    const column = created.data;
    expect(column.data).toMatchObject({
      type: "formula",
      formula: { text: "{Price} * {Qty}", resultType: "number", expression: op("*", col(price), col(qty)) },
    });
    expect(column.formula).toMatchObject({
      text: "{Price} * {Qty}",
      resultType: "number",
      expression: op("*", col(price), col(qty)),
    });
    const rows = await allRows(t.owner.token, tableId);
    expect(rows.map((r) => r.cells[column._id]).sort()).toEqual([20, 5]);

    // E11 shows the same; a renamed input shows in the text at once.
    await ok("PATCH", `/table/column/${qty}`, { token: t.owner.token, body: { name: "Quantity" } });
    const listed = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(listed.formula.text).toBe("{Price} * {Quantity}");
    await ok("PATCH", `/table/column/${qty}`, { token: t.owner.token, body: { name: "Qty" } });

    // What was read can be sent back.
    const current = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data.find(
      (c: any) => c._id === column._id,
    );
    expect(current.data.formula.text).toBe("{Price} * {Qty}");
    const sentBack = await call("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: current.data },
    });
    expect(sentBack.status, JSON.stringify(sentBack.body)).toBe(200);
    expect(sentBack.body.data.formula).toEqual(current.formula);
  });

  it("changes a column's formula by PATCH with text or with the tree", async () => {
    const column = await addColumn(t.owner.token, tableId, "Label", { type: "text" });
    const patched = await ok("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { text: '{Name} & ": " & {Qty}' } } },
    });
    expect(patched.data.formula).toMatchObject({ text: '{Name} & ": " & {Qty}', resultType: "text" });
    expect((await allRows(t.owner.token, tableId)).map((r) => r.cells[column._id]).sort()).toEqual([
      "Ink: 2",
      "Pens: 4",
    ]);
    const byTree = await ok("PATCH", `/table/column/${column._id}`, {
      token: t.owner.token,
      body: { data: { type: "formula", formula: { expression: op("+", col(qty), col(qty)) } } },
    });
    expect(byTree.data.formula).toMatchObject({ text: "{Qty} + {Qty}", resultType: "number" });
  });
});

/**
 * The table routes on the request path (issue 9, docs/api-guide.md › HTTP semantics: retries, caching, replicas) and issue 14's computed cells: strong ETags with 304
 * on table GET, E11, E16 and E15; If-Match with 412 and nothing changed on the writes of those records; the round
 * trips of E1, E11, E15, E16 and E19 asserted one by one; and row creation (single, bulk) and cell upserts
 * answering with the formula cells computed in that same request.
 */
const STALE = '"0000000000000000000000000000dead"';

describe("table routes on the request path", () => {
  let t: Tenant;
  let tok: string;

  beforeAll(async () => {
    ({ t, tok } = await ordersFixture());
  });

  describe("If-Match: 412 and nothing changed, or the write with a current tag", () => {
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
  });
});
