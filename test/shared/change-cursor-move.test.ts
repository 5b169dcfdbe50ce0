/**
 * A change-feed cursor stays valid across a move of its organization's logical shard (issue 37 item 7;
 * docs/api-guide.md › Changes, history and audit; docs/scaling.md "Moving a logical shard"): a client that read the
 * feed to a cursor before the move, and follows it after, sees every entry exactly once — those written before the
 * move and after it. The organization's audit log moves too, and records the move (`admin.shard_moved`) and the
 * deletion of the copy it left (`admin.shard_copy_dropped`).
 */
import { afterAll, describe, expect, it } from "vitest";
import { ok, registerUser } from "../support/harness";
import { shardMover } from "../support/shards";
import { addRow, makeTable } from "../support/tableHarness";

const mover = shardMover();
afterAll(() => mover.restore());

/** The feed of `scope` from `cursor` (none: from the start), `limit` a page, until it brings nothing new. */
async function follow(token: string, scope: string, cursor?: string, limit = 2) {
  const out: any[] = [];
  for (;;) {
    const page = await ok("GET", `/changes?${scope}&limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { token });
    out.push(...page.data);
    if (page.data.length === 0) return { entries: out, cursor };
    cursor = page.nextCursor;
  }
}

const key = (e: any) => `${e.kind} ${e.recordId}`;

describe("change-feed cursors across a shard move", () => {
  it("a cursor read before the move, followed after it, sees every entry once: before and after the move", async () => {
    const u = await registerUser("Feed mover");
    const project = await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "P" } });
    const table = await makeTable(u.token, project.data._id, "Moved feed");
    const scope = `tableId=${table.tableId}`;
    const before = [];
    for (let i = 0; i < 5; i++) before.push((await addRow(u.token, table.tableId)).row._id);
    // A client reads part of the feed (two pages of two) and keeps its cursor.
    const first = await ok("GET", `/changes?${scope}&limit=2`, { token: u.token });
    const second = await ok("GET", `/changes?${scope}&limit=2&cursor=${first.nextCursor}`, { token: u.token });
    const read = [...first.data, ...second.data];

    const { logical, home, away } = await mover.moveAway(u.workspaceId);

    const after = [];
    for (let i = 0; i < 3; i++) after.push((await addRow(u.token, table.tableId)).row._id);
    await ok("DELETE", `/table/row/${before[0]}`, { token: u.token });
    const rest = (await follow(u.token, scope, second.nextCursor)).entries;
    const seen = [...read, ...rest].map(key);
    expect(new Set(seen).size).toBe(seen.length);
    // The table's own entries (table.created, column.created) come first; then its rows'.
    expect(seen.filter((k) => k.startsWith("row."))).toEqual([
      ...[...before, ...after].map((id) => `row.created ${id}`),
      `row.deleted ${before[0]}`,
    ]);
    // The whole feed read again from the start on the new database agrees.
    expect((await follow(u.token, scope)).entries.map(key)).toEqual(seen);

    // The audit log moved with the organization, and the move is in it.
    const audit = await ok("GET", `/organization/${u.organizationId}/audit?kind=admin.*`, { token: u.token });
    expect(audit.data.map((e: any) => e.kind)).toEqual([
      "admin.shard_copy_dropped",
      "admin.shard_moved",
      "admin.user_created",
    ]);
    expect(audit.data[1].changes).toEqual({
      logicalShard: { before: logical, after: logical },
      database: { before: home, after: away },
    });
    // The old copy's deletion, once it was done, in the database that serves the organization now.
    expect(audit.data[0].changes).toEqual({
      logicalShard: { before: logical, after: logical },
      oldCopy: { before: home, after: null },
    });
  });
});
