/** listRows: GET /table/{tableId}/rows (src/routes/rows/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant, expectError } from "../../support/harness";
import { addColumn, addRow, allRows, bulkRows, makeTable } from "../../support/tableHarness";
import { filterItemMatches } from "../../../src/services/tables/relations";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("filter operators", () => {
  it("compare a target value with an operand", () => {
    const cases: [Parameters<typeof filterItemMatches>, boolean][] = [
      [["eq", "a", "a"], true],
      [["eq", "a", "A"], false],
      [["eq", 1, 1], true],
      [["eq", 1, "1"], false],
      [["eq", ["a", "b"], ["b", "a"]], true],
      [["eq", null, "a"], false],
      [["eq", "a", null], false],
      [["neq", "a", "b"], true],
      [["neq", null, "b"], true],
      [["neq", "a", "a"], false],
      [["lt", 1, 2], true],
      [["lte", 2, 2], true],
      [["gt", "b", "a"], true],
      [["gte", 1, 2], false],
      [["gt", "2", 1], false],
      [["lt", null, 5], false],
      [["contains", "Hello World", "world"], true],
      [["contains", ["a", "b"], "b"], true],
      [["contains", ["a", "b"], ["a", "b"]], true],
      [["contains", ["a"], ["a", "c"]], false],
      [["contains", 12, 1], false],
      [["in", "a", ["a", "b"]], true],
      [["in", "c", ["a", "b"]], false],
      [["in", ["c", "b"], ["a", "b"]], true],
      [["in", "a", "a"], true],
      [["in", null, [null]], false],
      [["isEmpty", null, undefined], true],
      [["isEmpty", "", undefined], true],
      [["isEmpty", [], undefined], true],
      [["isEmpty", 0, undefined], false],
      [["isNotEmpty", false, undefined], true],
      [["isNotEmpty", undefined, undefined], false],
    ];
    for (const [args, want] of cases) expect(filterItemMatches(...args), JSON.stringify(args)).toBe(want);
  });
});

describe("oneMany columns", () => {
  let products: { tableId: string; nameColumnId: string };
  let orders: { tableId: string; nameColumnId: string };
  let price: string, tags: string, category: string, wantCategory: string, budget: string;
  const p: Record<string, string> = {};

  beforeAll(async () => {
    const tok = t.owner.token;
    products = await makeTable(tok, t.projectId, "Products");
    orders = await makeTable(tok, t.projectId, "Orders");
    const cats = [
      { id: "tools", label: "Tools", color: "g" },
      { id: "toys", label: "Toys", color: "r" },
    ];
    price = (await addColumn(tok, products.tableId, "Price", { type: "number" }))._id;
    tags = (
      await addColumn(tok, products.tableId, "Tags", {
        type: "multiSelect",
        selectItems: [
          { id: "sale", label: "Sale", color: "y" },
          { id: "new", label: "New", color: "b" },
        ],
      })
    )._id;
    category = (await addColumn(tok, products.tableId, "Category", { type: "select", selectItems: cats }))._id;
    wantCategory = (await addColumn(tok, orders.tableId, "Wants", { type: "select", selectItems: cats }))._id;
    budget = (await addColumn(tok, orders.tableId, "Budget", { type: "number" }))._id;
    const rows = await bulkRows(tok, products.tableId, [
      { [products.nameColumnId]: "Hammer", [price]: 12, [category]: "tools", [tags]: ["sale"] },
      { [products.nameColumnId]: "Yo-yo", [price]: 3, [category]: "toys" },
      { [products.nameColumnId]: "Saw", [price]: 30, [category]: "tools", [tags]: ["new"] },
      { [products.nameColumnId]: "Kite", [category]: "toys", [tags]: ["new", "sale"] },
    ]);
    for (const r of rows) p[r.cells[products.nameColumnId]] = r._id;
  });

  async function relation(name: string, oneMany: Record<string, unknown>) {
    return (
      await addColumn(t.owner.token, orders.tableId, name, {
        type: "oneMany",
        oneMany: { tableId: products.tableId, ...oneMany },
      })
    )._id as string;
  }

  it("computes related target row ids per source row, in target row order", async () => {
    const sameCategory = await relation("Same category", {
      filter: [{ targetColumnId: category, op: "eq", sourceColumnId: wantCategory }],
    });
    const affordable = await relation("Affordable", {
      filter: [
        { targetColumnId: category, op: "eq", sourceColumnId: wantCategory },
        { targetColumnId: price, op: "lte", sourceColumnId: budget },
      ],
      filterConjunction: "and",
    });
    const deals = await relation("Deals", {
      filter: [
        { targetColumnId: tags, op: "contains", value: "sale" },
        { targetColumnId: price, op: "lt", value: 5 },
      ],
      filterConjunction: "or",
    });
    const pricey = await relation("Pricey", { filter: [{ targetColumnId: price, op: "gt", value: 10 }] });
    const listed = await relation("Listed", { filter: [{ targetColumnId: category, op: "in", value: ["toys"] }] });
    const unpriced = await relation("Unpriced", { filter: [{ targetColumnId: price, op: "isEmpty" }] });
    const notHammer = await relation("Not hammer", {
      filter: [{ targetColumnId: products.nameColumnId, op: "neq", value: "Hammer" }],
    });
    const sawLike = await relation("Saw-like", {
      filter: [{ targetColumnId: products.nameColumnId, op: "contains", value: "SA" }],
    });
    const nothing = await relation("Nothing", { filter: [] });

    const a = await addRow(t.owner.token, orders.tableId, {
      [orders.nameColumnId]: "A",
      [wantCategory]: "tools",
      [budget]: 20,
    });
    const b = await addRow(t.owner.token, orders.tableId, {
      [orders.nameColumnId]: "B",
      [wantCategory]: "toys",
      [budget]: 1,
    });
    const c = await addRow(t.owner.token, orders.tableId, { [orders.nameColumnId]: "C" });

    const rows = await allRows(t.viewer.token, orders.tableId);
    const byName = Object.fromEntries(rows.map((r) => [r.cells[orders.nameColumnId], r.cells]));
    expect(byName.A![sameCategory]).toEqual([p.Hammer, p.Saw]);
    expect(byName.B![sameCategory]).toEqual([p["Yo-yo"], p.Kite]);
    expect(byName.C![sameCategory]).toEqual([]);
    expect(byName.A![affordable]).toEqual([p.Hammer]);
    expect(byName.B![affordable]).toEqual([]);
    for (const r of [byName.A!, byName.B!, byName.C!]) {
      expect(r[deals]).toEqual([p.Hammer, p["Yo-yo"], p.Kite]);
      expect(r[pricey]).toEqual([p.Hammer, p.Saw]);
      expect(r[listed]).toEqual([p["Yo-yo"], p.Kite]);
      expect(r[unpriced]).toEqual([p.Kite]);
      expect(r[notHammer]).toEqual([p["Yo-yo"], p.Saw, p.Kite]);
      expect(r[sawLike]).toEqual([p.Saw]);
      expect(r[nothing]).toEqual([]);
    }
    // Computed cells are read-only.
    const put = await call("PUT", `/table/row/${a.row._id}/cell/${sameCategory}`, {
      token: t.owner.token,
      body: { data: [p.Saw] },
    });
    expect(put.status).toBe(409);

    // Changes to either side show at the next read; deleted target rows and columns vanish.
    await ok("PUT", `/table/row/${c.row._id}/cell/${wantCategory}`, { token: t.owner.token, body: { data: "toys" } });
    await ok("DELETE", `/table/row/${p.Kite}`, { token: t.owner.token });
    await ok("PUT", `/table/row/${b.row._id}/cell/${budget}`, { token: t.owner.token, body: { data: 3 } });
    let after = Object.fromEntries(
      (await allRows(t.owner.token, orders.tableId)).map((r) => [r.cells[orders.nameColumnId], r.cells]),
    );
    expect(after.C![sameCategory]).toEqual([p["Yo-yo"]]);
    expect(after.B![affordable]).toEqual([p["Yo-yo"]]);
    expect(after.A![unpriced]).toEqual([]);

    await ok("DELETE", `/table/column/${price}`, { token: t.owner.token });
    after = Object.fromEntries(
      (await allRows(t.owner.token, orders.tableId)).map((r) => [r.cells[orders.nameColumnId], r.cells]),
    );
    expect(after.A![pricey]).toEqual([]);
    expect(after.A![unpriced]).toEqual([p.Hammer, p["Yo-yo"], p.Saw]);
    expect(after.A![sameCategory]).toEqual([p.Hammer, p.Saw]);
  });

  it("relates rows of the same table and computes for every row of a page", async () => {
    const tok = t.owner.token;
    const people = await makeTable(tok, t.projectId, "People");
    const manager = (await addColumn(tok, people.tableId, "Manager", { type: "text" }))._id;
    const reports = (
      await addColumn(tok, people.tableId, "Reports", {
        type: "oneMany",
        oneMany: {
          tableId: people.tableId,
          filter: [{ targetColumnId: manager, op: "eq", sourceColumnId: people.nameColumnId }],
        },
      })
    )._id;
    const names = Array.from({ length: 300 }, (_, i) => `p${i}`);
    const created = await bulkRows(
      tok,
      people.tableId,
      names.map((n, i) => ({ [people.nameColumnId]: n, ...(i > 0 && { [manager]: `p${Math.floor((i - 1) / 3)}` }) })),
    );
    const rows = await allRows(tok, people.tableId, 128);
    expect(rows).toHaveLength(300);
    rows.forEach((r, i) => {
      const want = [3 * i + 1, 3 * i + 2, 3 * i + 3].filter((j) => j < 300).map((j) => created[j]._id);
      expect(r.cells[reports]).toEqual(want);
    });
  });

  it("reads a deleted target table as no relations", async () => {
    const tok = t.owner.token;
    const target = await makeTable(tok, t.projectId, "Gone");
    await bulkRows(tok, target.tableId, [{ [target.nameColumnId]: "x" }]);
    const source = await makeTable(tok, t.projectId, "Src");
    const rel = (
      await addColumn(tok, source.tableId, "Rel", {
        type: "oneMany",
        oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "isNotEmpty" }] },
      })
    )._id;
    await addRow(tok, source.tableId);
    expect((await allRows(tok, source.tableId))[0].cells[rel]).toHaveLength(1);
    await ok("DELETE", `/table/${target.tableId}`, { token: tok });
    expect((await allRows(tok, source.tableId))[0].cells[rel]).toEqual([]);
  });
});

describe("rows", () => {
  describe("paging", () => {
    let tableId: string;
    let nameColumnId: string;
    let inserted: string[] = [];

    beforeAll(async () => {
      ({ tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Paging"));
      for (let batch = 0; batch < 3; batch++) {
        const size = batch < 2 ? 1000 : 500;
        const rows = await bulkRows(
          t.owner.token,
          tableId,
          Array.from({ length: size }, (_, i) => ({ [nameColumnId]: `r${batch * 1000 + i}` })),
        );
        inserted.push(...rows.map((r) => r._id));
      }
    });

    it("returns each of 2,500 rows exactly once, in creation order", async () => {
      for (const limit of [1000, 333]) {
        const rows = await allRows(t.viewer.token, tableId, limit);
        expect(rows.map((r) => r._id)).toEqual(inserted);
        expect(rows[2499].cells[nameColumnId]).toBe("r2499");
      }
      const first = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
      expect(first.data).toHaveLength(100);
      expect(typeof first.nextCursor).toBe("string");
    });

    it("neither skips nor repeats rows added between page fetches", async () => {
      const added: string[] = [];
      const seen = await allRows(t.owner.token, tableId, 400, async (page) => {
        if (page < 4) {
          const rows = await bulkRows(
            t.owner.token,
            tableId,
            Array.from({ length: 150 }, (_, i) => ({ [nameColumnId]: `late ${page}-${i}` })),
          );
          added.push(...rows.map((r) => r._id));
        }
        if (page === 1)
          await ok("POST", `/table/${tableId}/row`, { token: t.owner.token, body: {} }).then((r) =>
            added.push(r.data.row._id),
          );
      });
      const ids = seen.map((r) => r._id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual([...inserted, ...added]);
      inserted = ids;
    });

    it("rejects bad limits and cursors with 400", async () => {
      for (const limit of ["0", "1001", "abc", "1.5", ""]) {
        expectError(
          await call("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { limit } }),
          400,
          "ValidationError",
        );
      }
      for (const cursor of ["!!!", "bm9wZQ", btoa("12:bad id"), btoa("x:01ABC")]) {
        const res = await call("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { cursor } });
        expectError(res, 400, "ValidationError");
      }
      const page = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token, query: { limit: 1 } });
      expect(page.data).toHaveLength(1);
    });
  });
});
