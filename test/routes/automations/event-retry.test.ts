/**
 * Events whose runs cannot be created when they happen are not lost (docs/scaling.md, "What a client sees"): the
 * write they follow has succeeded, so a shard database that refuses the runs' creation
 * (here: fenced read-only, as during a move of its logical shard) sends the events to the queue, which creates the
 * runs once the database takes writes again, each exactly once however often the retry is delivered. Row events,
 * new documents and new comments are read from the change log instead (src/services/automations/logTriggers.ts):
 * a write whose after-response work never ran still starts its runs at the next tick, and readers that race start
 * one run per entry.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { addWorkspaceCollaborator, call, ok, registerUser } from "../../support/harness";
import { addColumn, makeTable } from "../../support/tableHarness";
import { STAGE_CELLS } from "../../../src/services/changes/staged";
import { callScheduled, eventually, finishedRuns, sleep } from "../../support/automations";
import { shardD1 } from "../../support/shards";
import { logicalShardOfId } from "../../../src/tenancy/kernel/ids";
import { docThread, rowThread, seedCommentTenant } from "../../support/comments";
import { importMarkdown } from "../../support/markdown";
import {
  commentEvent,
  documentCreatedEvent,
  documentUpdatedEvent,
  rowEvent,
  type EventInput,
} from "../../../src/services/events/events";
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
          triggers: [{ event: "document.updated" }],
          actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
        },
      })
    ).data;
    const runsOf = () => countIn(auto._id, `SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`);

    // A document written just before its shard was fenced: its event (one of the bus's, not read from the change
    // log) arrives while the database refuses writes.
    await fence(projectId);
    const documentId = `${projectId.slice(0, -4)}DOZZ`;
    const event = documentUpdatedEvent({ id: documentId, projectId, parentId: null });
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
      trigger: { event: "document.updated", documentId, eventId: expect.any(String) },
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

/** The event keys of an automation's runs, in order. */
async function runKeys(automationId: string) {
  const rows = await shardD1(automationId)
    .prepare(`SELECT event_key FROM automation_runs WHERE automation_id = ?1 ORDER BY event_key`)
    .bind(automationId)
    .all<{ event_key: string }>();
  return rows.results.map((r) => r.event_key);
}

/** A `SELECT count(*) AS n` whose one parameter is `id`, in the database holding `id`. */
async function countIn(id: string, query: string) {
  return Number(await shardD1(id).prepare(query).bind(id).first("n"));
}

/** An automation notifying on `event` of the table's rows. */
async function rowAutomation(
  token: string,
  where: { projectId: string; tableId: string },
  name: string,
  event: "row.created" | "row.updated",
) {
  const body = {
    projectId: where.projectId,
    name,
    triggers: [{ event, filter: { tableId: where.tableId } }],
    actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
  };
  return (await ok("POST", "/automation", { token, body })).data;
}

/** A project with an automation started by its table's new rows, and what the test reads of it. */
async function watchedTable(name: string) {
  const u = await registerUser(name);
  const projectId = (await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name } })).data
    ._id as string;
  const table = await makeTable(u.token, projectId, "Watched");
  const auto = await rowAutomation(u.token, { projectId, tableId: table.tableId }, name, "row.created");
  const keys = () => runKeys(auto._id);
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

  it("a project no trigger watches keeps no cursor; a trigger made later starts runs only for the writes after it", async () => {
    const w = await watchedTable("Unwatched");
    const cursors = () =>
      countIn(w.projectId, `SELECT count(*) AS n FROM automation_log_cursors WHERE project_id = ?1`);
    await w.addRow();
    await finishedRuns(w.u.token, w.auto._id, 1);
    expect(await cursors()).toBe(1);
    // The project's only trigger goes: the next read drops its cursor, and later reads write nothing.
    expect((await call("DELETE", `/automation/${w.auto._id}`, { token: w.u.token })).status).toBeLessThan(300);
    const unseen = await w.addRow();
    await stepLogTriggers(env, w.projectId);
    expect(await cursors()).toBe(0);
    await w.addRow();
    await stepLogTriggers(env, w.projectId);
    expect(await cursors()).toBe(0);
    // A new trigger starts from its own creation: the rows written while nothing watched start no run.
    await sleep(5);
    const later = await rowAutomation(
      w.u.token,
      { projectId: w.projectId, tableId: w.table.tableId },
      "Later",
      "row.created",
    );
    const seen = await w.addRow();
    const [run] = await finishedRuns(w.u.token, later._id, 1);
    expect(run.trigger.rowId).toBe(seen);
    await stepLogTriggers(env, w.projectId);
    await sleep(200);
    const rows = (await ok("GET", `/automation/${later._id}/runs`, { token: w.u.token })).data;
    expect(rows.map((r: any) => r.trigger.rowId)).toEqual([seen]);
    expect(rows.map((r: any) => r.trigger.rowId)).not.toContain(unseen);
  });

  it("a large write's staged entries whose fold never ran are folded by the log's read and start their runs", async () => {
    const w = await watchedTable("Staged entries");
    const rows = [await w.addRow(), await w.addRow()];
    await finishedRuns(w.u.token, w.auto._id, 2);
    const n = (await addColumn(w.u.token, w.table.tableId, "N", { type: "number" }))._id;
    const updated = await rowAutomation(
      w.u.token,
      { projectId: w.projectId, tableId: w.table.tableId },
      "Updated",
      "row.updated",
    );
    // A bulk write whose Worker died after its batch: its entries staged, no fold, no nudge.
    await shardD1(w.projectId)
      .prepare(STAGE_CELLS)
      .bind(
        Date.now(),
        "row.updated",
        w.u.workspaceId,
        w.projectId,
        w.table.tableId,
        JSON.stringify({ type: "user", userId: w.u.id }),
        "api",
        JSON.stringify(rows.map((rowId, i) => ["c", rowId, n, 0, i + 1])),
        `${w.projectId.slice(0, 20)}STAGEDXX${w.projectId.slice(-2)}`,
      )
      .run();
    await stepLogTriggers(env, w.projectId);
    const started = await finishedRuns(w.u.token, updated._id, 2);
    expect(started.map((r: any) => r.trigger.rowId).sort()).toEqual([...rows].sort());
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

/** Automations of one project and its log cursor, as the document and comment tests read and reset them. */
function logWatch(projectId: string) {
  const keys = runKeys;
  const seqOf = async (kind: string, recordId: string) =>
    Number(
      await shardD1(projectId)
        .prepare(`SELECT seq FROM change_log WHERE record_id = ?1 AND kind = ?2`)
        .bind(recordId, kind)
        .first("seq"),
    );
  /** A crash right after the writes from `firstSeq` on: the automations' runs gone, the cursor before the entries. */
  const crashAfterWrites = async (firstSeq: number, automationIds: readonly string[]) => {
    for (const id of automationIds)
      await shardD1(id).prepare(`DELETE FROM automation_runs WHERE automation_id = ?1`).bind(id).run();
    await shardD1(projectId)
      .prepare(`UPDATE automation_log_cursors SET cursor_seq = ?2, cursor_record_id = '' WHERE project_id = ?1`)
      .bind(projectId, firstSeq - 1)
      .run();
  };
  /** Every reader at once: the minute's tick, a write's nudge and two steps tried again. */
  const readTogether = (events: readonly EventInput[]) =>
    Promise.all([
      callScheduled(Date.now()),
      nudgeLogTriggers(env, events),
      stepLogTriggers(env, projectId),
      stepLogTriggers(env, projectId),
    ]);
  return { keys, seqOf, crashAfterWrites, readTogether };
}

const notifyOn = async (token: string, projectId: string, trigger: object) =>
  (
    await ok("POST", "/automation", {
      token,
      body: {
        projectId,
        name: "Watch",
        triggers: [trigger],
        actions: [{ id: "n", spec: { kind: "notify", title: "E" } }],
      },
    })
  ).data._id as string;

describe("document and comment events read from the change log", () => {
  it("document.created: a new document in the watched folder (POST, Markdown import) starts its run from the log, once", async () => {
    const t = await seedCommentTenant();
    const w = logWatch(t.projectId);
    const auto = await notifyOn(t.owner.token, t.projectId, {
      event: "document.created",
      filter: { documentId: t.folderId },
    });
    const root = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "At the root", type: "DOCUMENT" },
    });
    const posted = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "In the folder", type: "DOCUMENT" },
    });
    const imported = await importMarkdown(
      "# Imported",
      { projectId: t.projectId, parentId: t.folderId, name: "Imported" },
      t.owner.token,
    );
    expect(imported.status).toBe(200);
    const inFolder = [posted.data._id as string, (imported.body as any).data.document._id as string];
    const seqs = await Promise.all(inFolder.map((id) => w.seqOf("document.created", id)));
    const expected = inFolder.map((id, i) => `event:log:${seqs[i]}.${id}`).sort();
    // Through the nudge: one run per document in the folder, none for the one at the root.
    await eventually(async () => (await w.keys(auto)).length === 2, 20_000, "the documents' runs");
    expect(await w.keys(auto)).toEqual(expected);
    const [run] = await finishedRuns(t.owner.token, auto, 2);
    // The run's trigger is the event the bus carried (documentCreatedEvent), with the entry's id.
    const id = run.trigger.documentId as string;
    expect(run.trigger).toEqual({
      type: "event",
      event: "document.created",
      projectId: t.projectId,
      documentId: id,
      eventId: `log:${seqs[inFolder.indexOf(id)]}.${id}`,
    });

    // The Worker died after answering: the next tick starts them.
    await w.crashAfterWrites(await w.seqOf("document.created", root.data._id), [auto]);
    await callScheduled(Date.now());
    expect(await w.keys(auto)).toEqual(expected);
    // Every reader at once still starts each run once, and the bus starts none itself.
    await w.crashAfterWrites(Math.min(...seqs), [auto]);
    const events = inFolder.map((d) => documentCreatedEvent({ id: d, projectId: t.projectId, parentId: t.folderId }));
    await w.readTogether(events);
    expect(await w.keys(auto)).toEqual(expected);
    expect(await runsForEvents(env, events, 0, null)).toBe(0);
  });

  it("comment.created: threads and replies on documents and rows start their runs from the log, filters kept", async () => {
    const t = await seedCommentTenant();
    const w = logWatch(t.projectId);
    const inFolder = await notifyOn(t.owner.token, t.projectId, {
      event: "comment.created",
      filter: { documentId: t.folderId },
    });
    const onTable = await notifyOn(t.owner.token, t.projectId, {
      event: "comment.created",
      filter: { tableId: t.tableId },
    });
    const rootDoc = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "At the root", type: "DOCUMENT" },
      })
    ).data._id as string;
    const outside = await ok("POST", `/document/${rootDoc}/comment`, { token: t.owner.token, body: { body: "No" } });
    const thread = await docThread(t, t.commenter.token, "In the folder");
    const reply = (
      await ok("POST", `/comment/${thread._id}/reply`, { token: t.editor.token, body: { body: "Agreed" } })
    ).data;
    const onRow = await rowThread(t, t.commenter.token, "On the row");
    const seq = (id: string) => w.seqOf("comment.created", id);
    const docKeys = [
      `event:log:${await seq(thread._id)}.${thread._id}`,
      `event:log:${await seq(reply._id)}.${reply._id}`,
    ];
    const rowKeys = [`event:log:${await seq(onRow._id)}.${onRow._id}`];
    await eventually(
      async () => (await w.keys(inFolder)).length === 2 && (await w.keys(onTable)).length === 1,
      20_000,
      "the comments' runs",
    );
    expect(await w.keys(inFolder)).toEqual(docKeys.sort());
    expect(await w.keys(onTable)).toEqual(rowKeys);
    // Their triggers are the events the bus carried (commentEvent), with the entries' ids.
    const byComment = async (automationId: string, count: number) =>
      Object.fromEntries(
        (await finishedRuns(t.owner.token, automationId, count)).map((r) => [r.trigger.eventId, r.trigger]),
      );
    const docTriggers = await byComment(inFolder, 2);
    for (const c of [thread, reply]) {
      const eventId = `log:${await seq(c._id)}.${c._id}`;
      expect(docTriggers[eventId]).toEqual({
        type: "event",
        event: "comment.created",
        projectId: t.projectId,
        documentId: t.docId,
        eventId,
      });
    }
    expect(Object.values(await byComment(onTable, 1))).toEqual([
      {
        type: "event",
        event: "comment.created",
        projectId: t.projectId,
        tableId: t.tableId,
        rowId: t.rowId,
        eventId: `log:${await seq(onRow._id)}.${onRow._id}`,
      },
    ]);

    // After a crash, every reader at once: each run once, the comment outside the folder none; the bus none itself.
    await w.crashAfterWrites(await seq(outside.data._id), [inFolder, onTable]);
    const events = [
      commentEvent("comment.created", { projectId: t.projectId, documentId: t.docId, tableId: null, rowId: null }, [
        t.docId,
        t.folderId,
      ]),
    ];
    await w.readTogether(events);
    expect(await w.keys(inFolder)).toEqual(docKeys.sort());
    expect(await w.keys(onTable)).toEqual(rowKeys);
    expect(await runsForEvents(env, events, 0, null)).toBe(0);
  });

  it("a document or comment in a project the automation's owner can no longer read starts no run", async () => {
    const t = await seedCommentTenant();
    const w = logWatch(t.projectId);
    const member = await registerUser("Watcher");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, member, "editor");
    const watch = (token: string) =>
      Promise.all([
        notifyOn(token, t.projectId, { event: "document.created" }),
        notifyOn(token, t.projectId, { event: "comment.created" }),
      ]);
    const [memberDocs, memberComments] = await watch(member.token);
    const [ownerDocs, ownerComments] = await watch(t.owner.token);
    await ok("DELETE", `/workspace/${t.workspaceId}/collaborator/${member.id}`, { token: t.owner.token });
    const doc = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Unseen", type: "DOCUMENT" },
      })
    ).data._id as string;
    const comment = await docThread(t, t.owner.token, "Unseen");
    // The owner's automations ran for the same entries: the member's were looked up in the same pass.
    await eventually(
      async () => (await w.keys(ownerDocs)).length === 1 && (await w.keys(ownerComments)).length === 1,
      20_000,
      "the owner's runs",
    );
    await w.crashAfterWrites(await w.seqOf("document.created", doc), [ownerDocs, ownerComments]);
    await callScheduled(Date.now());
    expect(await w.keys(ownerDocs)).toEqual([`event:log:${await w.seqOf("document.created", doc)}.${doc}`]);
    expect(await w.keys(ownerComments)).toEqual([
      `event:log:${await w.seqOf("comment.created", comment._id)}.${comment._id}`,
    ]);
    expect(await w.keys(memberDocs)).toEqual([]);
    expect(await w.keys(memberComments)).toEqual([]);
  });
});
