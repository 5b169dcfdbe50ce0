/**
 * Events whose runs cannot be created when they happen are not lost (docs/scaling.md, "What a client sees"): the
 * write they follow has succeeded, so a shard database that refuses the runs' creation
 * (here: fenced read-only, as during a move of its logical shard) sends the events to the queue, which creates the
 * runs once the database takes writes again, each exactly once however often the retry is delivered. Row events
 * are read from the change log instead (src/services/automations/logTriggers.ts): a write whose after-response work
 * never ran still starts its runs at the next tick, and readers that race start one run per entry.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ok, registerUser } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";
import { callScheduled, eventually, finishedRuns, sleep } from "../../support/automations";
import { shardD1 } from "../../support/shards";
import { logicalShardOfId } from "../../../src/tenancy/kernel/ids";
import { documentCreatedEvent, rowEvent } from "../../../src/services/events/events";
import { retryEvents, runsForEvents } from "../../../src/services/automations/events";
import { nudgeLogTriggers, stepLogTriggers } from "../../../src/services/automations/logTriggers";

const fenced: { projectId: string; logical: number }[] = [];

afterEach(async () => {
  for (const { projectId, logical } of fenced.splice(0))
    await shardD1(projectId).prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(logical).run();
});

async function fence(projectId: string) {
  const logical = logicalShardOfId(projectId)!;
  fenced.push({ projectId, logical });
  await shardD1(projectId)
    .prepare(
      `INSERT INTO shard_fence (logical, state, moved_to, updated_at) VALUES (?1, 'read-only', NULL, 0) ON CONFLICT (logical) DO UPDATE SET state = excluded.state, moved_to = excluded.moved_to`,
    )
    .bind(logical)
    .run();
}

describe("events whose runs could not be created", () => {
  it("are retried through the queue once the shard database takes writes again, and make each run once", async () => {
    const u = await registerUser("Deferred events");
    const projectId = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Deferred" } })
    ).data._id as string;
    const auto = (
      await ok("POST", "/automation", {
        token: u.token,
        body: {
          projectId,
          name: "Later",
          triggers: [{ event: "document.created" }],
          actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
        },
      })
    ).data;
    const runsOf = async () =>
      Number(
        await shardD1(auto._id)
          .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`)
          .bind(auto._id)
          .first("n"),
      );

    // A document made just before its shard was fenced: its event arrives while the database refuses writes.
    await fence(projectId);
    const documentId = `${projectId.slice(0, -4)}DOZZ`;
    const event = documentCreatedEvent({ id: documentId, projectId, parentId: null });
    expect(await runsForEvents(env, [event], 0, null)).toBe(0);
    await sleep(200);
    expect(await runsOf()).toBe(0);

    // The fence lifts (the move ended, or was abandoned): the queued retry creates the run.
    await shardD1(projectId)
      .prepare(`DELETE FROM shard_fence WHERE logical = ?1`)
      .bind(logicalShardOfId(projectId))
      .run();
    const [run] = await finishedRuns(u.token, auto._id, 1, 30_000);
    expect(run).toMatchObject({
      status: "succeeded",
      trigger: { event: "document.created", documentId, eventId: expect.any(String) },
    });

    // The same retry delivered again (the queue delivers at least once) creates nothing more.
    const cascadeId = (await shardD1(auto._id)
      .prepare(`SELECT cascade_id FROM automation_runs WHERE id = ?1`)
      .bind(run._id)
      .first<string>("cascade_id"))!;
    const again = await retryEvents(env, {
      kind: "events",
      events: [{ ...event, eventId: run.trigger.eventId }],
      depth: 0,
      cascadeId,
      causedByRun: false,
    });
    expect(again).toBe(0);
    expect(await runsOf()).toBe(1);
  });
});

/** A project with an automation started by its table's new rows, and what the test reads of it. */
async function watchedTable(name: string) {
  const u = await registerUser(name);
  const projectId = (await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name } })).data
    ._id as string;
  const table = await makeTable(u.token, projectId, "Watched");
  const auto = (
    await ok("POST", "/automation", {
      token: u.token,
      body: {
        projectId,
        name,
        triggers: [{ event: "row.created", filter: { tableId: table.tableId } }],
        actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
      },
    })
  ).data;
  const keys = async () =>
    (
      await shardD1(auto._id)
        .prepare(`SELECT event_key FROM automation_runs WHERE automation_id = ?1 ORDER BY event_key`)
        .bind(auto._id)
        .all<{ event_key: string }>()
    ).results.map((r) => r.event_key);
  /** The state a crash right after the writes leaves: no run, the project's cursor before their entries. */
  const crashAfterWrites = async (firstSeq: number) => {
    await shardD1(auto._id).prepare(`DELETE FROM automation_runs WHERE automation_id = ?1`).bind(auto._id).run();
    await shardD1(projectId)
      .prepare(`UPDATE automation_log_cursors SET cursor_seq = ?2, cursor_record_id = '' WHERE project_id = ?1`)
      .bind(projectId, firstSeq - 1)
      .run();
  };
  const seqOf = async (rowId: string) =>
    Number(
      await shardD1(projectId)
        .prepare(`SELECT seq FROM change_log WHERE record_id = ?1 AND kind = 'row.created'`)
        .bind(rowId)
        .first("seq"),
    );
  const addRow = async () =>
    (await ok("POST", `/table/${table.tableId}/row`, { token: u.token, body: { cells: {} } })).data.row._id as string;
  return { u, projectId, table, auto, keys, crashAfterWrites, seqOf, addRow };
}

describe("row events read from the change log", () => {
  it("a row whose after-response work never ran still starts its run at the next tick", async () => {
    const w = await watchedTable("Crash after write");
    const rowId = await w.addRow();
    const seq = await w.seqOf(rowId);
    await finishedRuns(w.u.token, w.auto._id, 1);
    // The Worker died after answering: the nudge never read the log, so no run exists and the cursor is before it.
    await w.crashAfterWrites(seq);
    expect(await w.keys()).toEqual([]);
    await callScheduled(Date.now());
    expect(await w.keys()).toEqual([`event:log:${seq}.${rowId}`]);
    const [run] = await finishedRuns(w.u.token, w.auto._id, 1, 30_000);
    expect(run).toMatchObject({ trigger: { event: "row.created", tableId: w.table.tableId, rowId } });
  });

  it("the tick, the nudge and a repeated step together start one run per entry", async () => {
    const w = await watchedTable("Racing readers");
    const rowIds = [await w.addRow(), await w.addRow(), await w.addRow()];
    const seqs = await Promise.all(rowIds.map(w.seqOf));
    await finishedRuns(w.u.token, w.auto._id, 3);
    await w.crashAfterWrites(Math.min(...seqs));
    const events = rowIds.map((id) =>
      rowEvent("row.created", { id: w.table.tableId, projectId: w.projectId, documentId: null }, id),
    );
    await Promise.all([
      callScheduled(Date.now()),
      nudgeLogTriggers(env, events),
      stepLogTriggers(env, w.projectId),
      stepLogTriggers(env, w.projectId),
    ]);
    expect(await w.keys()).toEqual(rowIds.map((id, i) => `event:log:${seqs[i]}.${id}`).sort());
    // And the bus no longer starts runs of row events itself.
    expect(await runsForEvents(env, events, 0, null)).toBe(0);
  });

  it("a bulk write's entries past one step's worth all start their runs, at once and again after a crash", async () => {
    const w = await watchedTable("Bulk backlog");
    const created = (
      await ok("POST", `/table/${w.table.tableId}/rows`, {
        token: w.u.token,
        body: { rows: Array.from({ length: 130 }, () => ({ cells: {} })) },
      })
    ).data.rows as { _id: string }[];
    await eventually(async () => (await w.keys()).length === 130, 30_000, "130 runs from the nudge");
    await w.crashAfterWrites(Math.min(...(await Promise.all(created.map((r) => w.seqOf(r._id))))));
    expect(await stepLogTriggers(env, w.projectId)).toBe(130);
    expect((await w.keys()).every((k) => k.startsWith("event:log:"))).toBe(true);
  });

  it("a caught-up read moves the cursor past the entries of other kinds, so they are not read again", async () => {
    const w = await watchedTable("Other kinds");
    const rowId = await w.addRow();
    await finishedRuns(w.u.token, w.auto._id, 1);
    // After the row: entries no row trigger reads (a document created and renamed, a column added).
    const doc = (
      await ok("POST", "/document", { token: w.u.token, body: { projectId: w.projectId, name: "D", type: "DOCUMENT" } })
    ).data._id as string;
    await ok("PATCH", `/document/${doc}`, { token: w.u.token, body: { name: "D2" } });
    await ok("POST", `/table/${w.table.tableId}/column`, {
      token: w.u.token,
      body: { name: "C", data: { type: "text" } },
    });
    const cursor = () =>
      shardD1(w.projectId)
        .prepare(`SELECT cursor_seq AS seq, cursor_record_id AS id FROM automation_log_cursors WHERE project_id = ?1`)
        .bind(w.projectId)
        .first<{ seq: number; id: string }>();
    const newest = await shardD1(w.projectId)
      .prepare(
        `SELECT seq, record_id AS id FROM change_log WHERE project_id = ?1 ORDER BY seq DESC, record_id DESC LIMIT 1`,
      )
      .bind(w.projectId)
      .first<{ seq: number; id: string }>();
    expect(newest!.seq).toBeGreaterThan(await w.seqOf(rowId));
    expect(await stepLogTriggers(env, w.projectId)).toBe(0);
    expect(await cursor()).toEqual(newest);
    // The row's run is the only one, started once.
    expect(await w.keys()).toEqual([`event:log:${await w.seqOf(rowId)}.${rowId}`]);
  });
});
