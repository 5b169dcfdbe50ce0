/**
 * The change log as a property (docs/api-guide.md › Changes, history and audit): over random sequences of row
 * writes, replaying the feed from the start of a table rebuilds exactly the table's rows and values, each entry
 * is seen once, and a write that changes nothing adds no entry.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, allRows, makeTable } from "../../support/tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

type Op =
  | { op: "create"; n: number }
  | { op: "put"; row: number; n: number }
  | { op: "patch"; row: number; n: number; name: string }
  | { op: "bulk"; rows: [number, number]; n: number }
  | { op: "delete"; row: number }
  | { op: "restore"; row: number };

const small = fc.integer({ min: 0, max: 2 });
const pick = fc.nat(50);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("create" as const), n: small }),
  fc.record({ op: fc.constant("put" as const), row: pick, n: small }),
  fc.record({ op: fc.constant("patch" as const), row: pick, n: small, name: fc.constantFrom("a", "b") }),
  fc.record({ op: fc.constant("bulk" as const), rows: fc.tuple(pick, pick), n: small }),
  fc.record({ op: fc.constant("delete" as const), row: pick }),
  fc.record({ op: fc.constant("restore" as const), row: pick }),
);

interface Table {
  tableId: string;
  name: string;
  n: string;
  live: string[];
  deleted: string[];
}

async function apply(tb: Table, o: Op, token: string) {
  const live = (i: number) => tb.live[i % tb.live.length];
  if (o.op === "create") {
    const r = await ok("POST", `/table/${tb.tableId}/row`, { token, body: { cells: { [tb.n]: o.n } } });
    tb.live.push(r.data.row._id);
  } else if (o.op === "restore") {
    const id = tb.deleted[o.row % Math.max(1, tb.deleted.length)];
    if (!id) return;
    await ok("POST", `/table/${tb.tableId}/rows/restore`, { token, body: { ids: [id] } });
    tb.deleted = tb.deleted.filter((x) => x !== id);
    tb.live.push(id);
  } else {
    if (tb.live.length === 0) return;
    if (o.op === "put") await ok("PUT", `/table/row/${live(o.row)}/cell/${tb.n}`, { token, body: { data: o.n } });
    if (o.op === "patch")
      await ok("PATCH", `/table/row/${live(o.row)}`, { token, body: { cells: { [tb.n]: o.n, [tb.name]: o.name } } });
    if (o.op === "bulk") {
      const ids = [...new Set(o.rows.map(live))];
      await ok("PATCH", `/table/${tb.tableId}/rows`, {
        token,
        body: { rows: ids.map((_id) => ({ _id, cells: { [tb.n]: o.n } })) },
      });
    }
    if (o.op === "delete") {
      const id = live(o.row)!;
      expect((await call("DELETE", `/table/row/${id}`, { token })).status).toBe(200);
      tb.live = tb.live.filter((x) => x !== id);
      tb.deleted.push(id);
    }
  }
}

/** The rows the feed describes: live rows by id with their non-null values. */
async function replay(tableId: string, token: string) {
  const state = new Map<string, { deleted: boolean; cells: Record<string, unknown> }>();
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (;;) {
    const page = await ok("GET", `/changes?tableId=${tableId}&limit=7${cursor ? `&cursor=${cursor}` : ""}`, { token });
    for (const e of page.data) {
      const key = `${e.recordId}@${e.cursor.slice(0, 20)}:${JSON.stringify(e.changes)}:${e.kind}:${e.at}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
      // The table's own entries (table.created, column.created…) are in its feed too; rows are rebuilt from row.*.
      if (!e.kind.startsWith("row.")) continue;
      const row = state.get(e.recordId) ?? { deleted: false, cells: {} };
      if (e.kind === "row.deleted") row.deleted = true;
      if (e.kind === "row.restored") row.deleted = false;
      for (const [col, c] of Object.entries<any>(e.changes ?? {})) {
        if (e.kind === "row.updated") expect(c.before ?? null).toEqual(row.cells[col] ?? null);
        if (c.after === null) delete row.cells[col];
        else row.cells[col] = c.after;
      }
      state.set(e.recordId, row);
    }
    if (page.data.length === 0) break;
    cursor = page.nextCursor;
  }
  return new Map([...state].filter(([, r]) => !r.deleted).map(([id, r]) => [id, r.cells]));
}

const nonNull = (cells: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(cells).filter(([, v]) => v !== null && v !== undefined));

describe("replaying the change feed", () => {
  it("rebuilds the table after any sequence of row writes", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 5, maxLength: 25 }), async (ops) => {
        const token = t.editor.token;
        const made = await makeTable(t.owner.token, t.projectId, "Replay");
        const n = (await addColumn(t.owner.token, made.tableId, "N", { type: "number" }))._id;
        const tb: Table = { tableId: made.tableId, name: made.nameColumnId, n, live: [], deleted: [] };
        for (const o of ops) await apply(tb, o, token);
        const rebuilt = await replay(tb.tableId, t.owner.token);
        const rows = await allRows(t.owner.token, tb.tableId);
        expect(new Map(rows.map((r) => [r._id, nonNull(r.cells)]))).toEqual(rebuilt);
      }),
      { numRuns: 4 },
    );
  });
});
