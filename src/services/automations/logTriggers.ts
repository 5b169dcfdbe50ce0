/**
 * Event triggers of the log's kinds (events.ts LOG_EVENTS: row.created|updated|deleted, document.created,
 * comment.created) read from the change log (docs/api-guide.md › Automations, published portals, collaborative
 * editing), so such an event is not lost when the Worker dies after answering the write: the log's entry was
 * committed in the write's own batch (services/changes/log.ts). Each project watched by event triggers has a cursor
 * (automation_log_cursors); every minute (src/index.ts REPAIRS, over every shard database) and at once after a write
 * (the nudge: nudgeLogTriggers, an event consumer beside runsForEvents, which creates no runs for these kinds),
 * the project's entries past its cursor of the kinds its triggers watch are read, ENTRIES_PER_STEP at a time, and
 * become the events the bus carried (eventOf) with the entry's id (`log:<seq>.<recordId>`). Their runs are created
 * as the bus's were (events.ts runsOnShard), keyed by that id through the runs' unique (automation_id, event_key): a
 * tick and a nudge that read the same entries, or a step tried again, start each run once. The cursor only moves
 * forward, and only after the runs exist.
 * A run's writes carry its id in the entry's actor: their runs take its depth and cascade (none past MAX_DEPTH).
 */
import type { Env } from "../../env";
import { uncountedD1 } from "../../db/instrument";
import { commentEvent, documentCreatedEvent, rowEvent, type EventInput } from "../events/events";
import { bindingHolding, groupByShard, namesLogicalShard } from "./shards";
import { d1Holding, idsWithoutContext } from "../context";
import { onEveryShardDatabase } from "../upkeep";
import { foldStatement } from "../changes/staged";
import { LOG_EVENTS, MAX_DEPTH, runsOnShard } from "./events";
import {
  dropLogCursorStatement,
  dueLogProjectsStatement,
  logCursorStatement,
  logEntriesStatement,
  logWatchStatement,
  newestLogEntryStatement,
  moveLogCursorStatement,
  runCausesStatement,
} from "./queries";

const KINDS = JSON.stringify([...LOG_EVENTS]);
const ENTRIES_PER_STEP = 100;
const PROJECTS_PER_TICK = 50;
const NUDGE_PROJECTS = 10;
const TICK_MS = 20_000;
/** A project first read with no trigger of its own (only pointers of other organizations'): entries this recent count. */
const FIRST_READ_MS = 5 * 60_000;

interface EntryRow {
  seq: number;
  record_id: string;
  kind: string;
  table_id: string | null;
  actor: string;
  changes: string | null;
  /** The table's document (a row's, a row comment's). */
  document_id: string | null;
  /** A comment's target document or row, and that document's parent folder. */
  comment_document_id: string | null;
  comment_row_id: string | null;
  comment_parent_id: string | null;
}

/**
 * Whether a trigger watches the project, its cursor (made on its first watched read: logCursorStatement), then its
 * next entries of the kinds read here.
 */
function stepStatements(d1: D1Database, projectId: string, now: number) {
  return [
    logWatchStatement(d1, projectId, KINDS),
    logCursorStatement(d1, projectId, KINDS, now, now - FIRST_READ_MS),
    logEntriesStatement(d1, projectId, KINDS, ENTRIES_PER_STEP),
    newestLogEntryStatement(d1, projectId),
  ];
}

/**
 * The event an entry stands for, as the write's bus event carried it (services/events: the same builders), so the
 * triggers' filters match it as before; a row event with the columns it changed (recomputed formula cells alone
 * fire nothing).
 */
function eventOf(projectId: string, e: EntryRow): EventInput | null {
  const eventId = `log:${e.seq}.${e.record_id}`;
  const changes = e.changes ? (JSON.parse(e.changes) as Record<string, { derived?: boolean; after?: unknown }>) : {};
  if (e.kind === "document.created") {
    const parentId = (changes.parentId?.after as string | null | undefined) ?? null;
    return { ...documentCreatedEvent({ id: e.record_id, projectId, parentId }), eventId };
  }
  if (e.kind === "comment.created") return { ...commentCreatedEvent(projectId, e), eventId };
  const columnIds = Object.keys(changes).filter((c) => !changes[c]!.derived);
  if (e.kind === "row.updated" && !columnIds.length) return null;
  return {
    ...rowEvent(e.kind as RowKind, { id: e.table_id!, projectId, documentId: e.document_id }, e.record_id, columnIds),
    eventId,
  };
}

type RowKind = Parameters<typeof rowEvent>[0];

/** A comment's event: on its document (the document and its folder count for filters) or on its row (the table's). */
function commentCreatedEvent(projectId: string, e: EntryRow): EventInput {
  const documentId = e.comment_document_id;
  const target = { projectId, documentId, tableId: e.table_id, rowId: e.comment_row_id };
  const documentIds = documentId
    ? [documentId, ...(e.comment_parent_id ? [e.comment_parent_id] : [])]
    : e.document_id
      ? [e.document_id]
      : [];
  return commentEvent("comment.created", target, documentIds);
}

interface Cause {
  depth: number;
  cascade: string | null;
}

/** The depth and cascade of the runs whose writes the entries record (actor.runId), read where each run is. */
async function causesOf(env: Env, runIds: readonly string[]): Promise<Map<string, Cause>> {
  const found = await Promise.all(
    [...groupByShard(runIds, (id) => id)].map(async ([binding, ids]) => {
      const rows = await runCausesStatement(uncountedD1(env[binding]!), ids).all<{
        id: string;
        depth: number;
        cascade_id: string | null;
      }>();
      return rows.results;
    }),
  );
  return new Map(found.flat().map((r) => [r.id, { depth: Number(r.depth), cascade: r.cascade_id }]));
}

/** The entries' events grouped by what caused them: a person (depth 0, a new cascade) or a run (its depth and cascade). */
async function groupedEvents(env: Env, projectId: string, entries: readonly EntryRow[]) {
  const byRun = new Map<string, EventInput[]>();
  for (const e of entries) {
    const event = eventOf(projectId, e);
    if (!event) continue;
    const runId = (JSON.parse(e.actor) as { runId?: string }).runId ?? "";
    byRun.set(runId, [...(byRun.get(runId) ?? []), event]);
  }
  const causes = await causesOf(
    env,
    [...byRun.keys()].filter((id) => id && namesLogicalShard(id)),
  );
  // A run no longer found (its record pruned) continues nothing: its writes' events fire no further run.
  return [...byRun].map(([runId, events]) => ({
    events,
    cause: runId ? (causes.get(runId) ?? { depth: MAX_DEPTH, cascade: null }) : { depth: 0, cascade: null },
  }));
}

/**
 * One step of a project's log: its next entries read, their runs created, its cursor moved past them. A project no
 * trigger watches has no cursor (dropped once, if it had one): a write there costs its nudge one read and no write,
 * and a trigger created later starts from its own creation (logCursorStatement).
 */
async function step(env: Env, projectId: string, now: number, fold = true): Promise<{ made: number; read: number }> {
  const d1 = uncountedD1(d1Holding(env, projectId));
  const [watch, , read, newest] = await d1.batch<EntryRow>(stepStatements(d1, projectId, now));
  const { watched, cursor, staged } = watch!.results[0] as unknown as Record<string, number>;
  if (!watched) {
    if (cursor) await dropLogCursorStatement(d1, projectId).run();
    return { made: 0, read: 0 };
  }
  // Large writes' entries still staged (../changes/staged.ts) are folded, and the step read again: no entry is read
  // past one still staged. Folded only then, so the nudge after every write stays a read.
  // (Once: a fenced logical shard's staged rows stay for the move to carry.)
  if (staged && fold) {
    await foldStatement(d1).run();
    return step(env, projectId, now, false);
  }
  const entries = read!.results;
  // Caught up (a step short of full): the cursor goes to the project's newest entry, past the entries of other kinds
  // after the last row entry, so neither the next step nor the tick's choice of due projects reads them again.
  const last = entries.length < ENTRIES_PER_STEP ? (newest!.results[0] ?? entries.at(-1)) : entries.at(-1);
  if (!last) return { made: 0, read: 0 };
  let made = 0;
  for (const { events, cause } of await groupedEvents(env, projectId, entries)) {
    if (cause.depth + 1 > MAX_DEPTH) continue;
    const cascade = cause.cascade ?? idsWithoutContext.beside(projectId);
    made += await runsOnShard(env, bindingHolding(projectId), events, cause.depth, cascade, cause.cascade !== null);
  }
  await moveLogCursorStatement(d1, projectId, last.seq, last.record_id, now).run();
  return { made, read: entries.length };
}

/**
 * A project's log (in its shard database) read step after step while the steps come back full and time is left
 * (a bulk write's entries all at once); the number of runs created. Throws when runs could not be created: the
 * cursor stays before those entries, and the next tick or nudge tries again.
 */
export async function stepLogTriggers(
  env: Env,
  projectId: string,
  now = Date.now(),
  deadline = Date.now() + TICK_MS,
): Promise<number> {
  let made = 0;
  for (;;) {
    const done = await step(env, projectId, now);
    made += done.made;
    if (done.read < ENTRIES_PER_STEP || Date.now() > deadline) return made;
  }
}

/**
 * The nudge after a write (an event consumer, src/index.ts; it runs after the response): the projects of its events
 * of the kinds read here have their logs read at once. What it leaves (a crash before it ran) the tick takes up.
 */
export async function nudgeLogTriggers(env: Env, events: readonly EventInput[]): Promise<number> {
  const written = events.filter((e) => LOG_EVENTS.has(e.event)).map((e) => e.projectId);
  const projects = [...new Set(written)].filter(namesLogicalShard).slice(0, NUDGE_PROJECTS);
  const made = await Promise.all(
    projects.map((p) =>
      stepLogTriggers(env, p).catch((err: unknown) => {
        console.error(
          JSON.stringify({ level: "warn", msg: "automation log read left to the tick", error: String(err) }),
        );
        return 0;
      }),
    ),
  );
  return made.reduce((a, n) => a + n, 0);
}

async function tickShard(env: Env, d1: D1Database, now: number, deadline: number): Promise<number> {
  const due = await dueLogProjectsStatement(uncountedD1(d1), KINDS, PROJECTS_PER_TICK).all<{ project_id: string }>();
  let made = 0;
  for (const { project_id } of due.results) {
    if (Date.now() > deadline) break;
    made += await stepLogTriggers(env, project_id, now, deadline).catch((err: unknown) => {
      console.error(JSON.stringify({ level: "error", msg: "automation log read failed", error: String(err) }));
      return 0;
    });
  }
  return made;
}

/** The minute's read of every shard database's logs, one step per due project; a failure waits for the next tick. */
export async function readLogTriggers(env: Env, now: number): Promise<number> {
  const deadline = Date.now() + TICK_MS;
  return (await onEveryShardDatabase(env, "automation log read", (d1) => tickShard(env, d1, now, deadline))).total;
}
