/**
 * Large writes' staged entries (docs/api-guide.md › Changes, history and audit, "What the log costs a write"): a
 * write of many cells stages its `row.updated` entries in its batch and folds them after its answer; a reader folds
 * whatever is still staged first, so the feed and histories show them right after the answer, in commit order, and
 * the minute's upkeep folds what a write whose after-response work died left.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, bulkRows, makeTable } from "../../support/tableHarness";
import { shardD1 } from "../../support/shards";
import { callScheduled } from "../../support/automations";
import { STAGE_CELLS, STAGE_FROM_CELLS, STAGE_GUARDED_CELLS } from "../../../src/services/changes/staged";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const ROWS = 150;

async function tableWithRows() {
  const table = await makeTable(t.owner.token, t.projectId, "Staged");
  const n = (await addColumn(t.owner.token, table.tableId, "N", { type: "number" }))._id;
  const rows = await bulkRows(
    t.owner.token,
    table.tableId,
    Array.from({ length: ROWS }, (_, i) => ({ [table.nameColumnId]: `r${i}`, [n]: i })),
  );
  return { ...table, n, rowIds: rows.map((r) => r._id as string) };
}

const rowEntries = async (tableId: string) =>
  ((await ok("GET", `/changes?tableId=${tableId}&limit=1000`, { token: t.owner.token })).data as any[]).filter(
    (e) => e.kind === "row.updated",
  );

describe("staged entries of large writes", () => {
  it("a bulk create and PATCH of many rows: their entries in the feed and the history at once, in order, before a later write's", async () => {
    const tb = await tableWithRows();
    // Even rows change their number; odd rows are sent their own values: 300 cells, 75 rows changed.
    const body = {
      rows: tb.rowIds.map((_id, i) => ({
        _id,
        cells: { [tb.nameColumnId]: `r${i}`, [tb.n]: i % 2 === 0 ? i + 1000 : i },
      })),
    };
    expect(body.rows.length * 2).toBeGreaterThanOrEqual(STAGE_FROM_CELLS);
    // The bulk PATCH's batch guards its rows itself: its staging does not look them up again.
    expect(STAGE_CELLS).toContain("FROM rows r");
    expect(STAGE_GUARDED_CELLS).not.toContain("FROM rows r");
    await ok("PATCH", `/table/${tb.tableId}/rows`, { token: t.editor.token, body });
    await ok("PUT", `/table/row/${tb.rowIds[0]}/cell/${tb.n}`, { token: t.editor.token, body: { data: 7 } });

    const all = (await ok("GET", `/changes?tableId=${tb.tableId}&limit=1000`, { token: t.owner.token })).data as any[];
    const created = all.filter((e) => e.kind === "row.created");
    expect(created.map((e) => e.recordId)).toEqual(tb.rowIds);
    expect(created[7].changes).toEqual({
      [tb.nameColumnId]: { before: null, after: "r7" },
      [tb.n]: { before: null, after: 7 },
    });
    const entries = await rowEntries(tb.tableId);
    const changed = tb.rowIds.filter((_, i) => i % 2 === 0);
    expect(entries.map((e) => e.recordId)).toEqual([...changed, tb.rowIds[0]]);
    expect(entries[1]).toMatchObject({
      recordId: tb.rowIds[2],
      actor: { type: "user", userId: t.editor.id },
      source: "api",
      changes: { [tb.n]: { before: 2, after: 1002 } },
    });
    expect(entries.at(-1).changes).toEqual({ [tb.n]: { before: 1000, after: 7 } });
    const history = await ok("GET", `/table/row/${tb.rowIds[0]}/history`, { token: t.owner.token });
    expect(history.data.map((e: any) => e.changes[tb.n])).toEqual([
      { before: 1000, after: 7 },
      { before: 0, after: 1000 },
      { before: null, after: 0 },
    ]);
  });

  it("what a write staged and nobody folded is folded by the first reader, numbered before later entries; the upkeep folds the rest", async () => {
    const tb = await tableWithRows();
    const d1 = shardD1(tb.tableId);
    const actor = JSON.stringify({ type: "user", userId: t.editor.id });
    // A write whose after-response fold never ran: its staged row alone (values as if rows 0–2 got 500 + i).
    const stage = (id: string, offset: number) =>
      d1
        .prepare(STAGE_CELLS)
        .bind(
          Date.now(),
          "row.updated",
          t.workspaceId,
          t.projectId,
          tb.tableId,
          actor,
          "api",
          JSON.stringify([0, 1, 2].map((i) => ["c", tb.rowIds[i], tb.n, 0, offset + i])),
          id,
        )
        .run();
    await stage(`${tb.tableId.slice(0, 20)}STAGED01${tb.tableId.slice(-2)}`, 500);
    await ok("PUT", `/table/row/${tb.rowIds[3]}/cell/${tb.n}`, { token: t.editor.token, body: { data: 9 } });

    const entries = await rowEntries(tb.tableId);
    expect(entries.map((e) => [e.recordId, e.changes[tb.n]])).toEqual([
      [tb.rowIds[0], { before: 0, after: 500 }],
      [tb.rowIds[1], { before: 1, after: 501 }],
      [tb.rowIds[2], { before: 2, after: 502 }],
      [tb.rowIds[3], { before: 3, after: 9 }],
    ]);

    await stage(`${tb.tableId.slice(0, 20)}STAGED02${tb.tableId.slice(-2)}`, 600);
    await callScheduled(Date.now());
    expect((await d1.prepare("SELECT count(*) AS n FROM change_log_staged").first())!.n).toBe(0);
    const folded = await d1
      .prepare("SELECT count(*) AS n FROM change_log WHERE table_id = ? AND kind = 'row.updated'")
      .bind(tb.tableId)
      .first();
    expect(folded!.n).toBe(7);
  });
});
