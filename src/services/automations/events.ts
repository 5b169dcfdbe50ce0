/**
 * Events → runs (docs/api-guide.md › Automations, published portals, collaborative editing): the automations' consumer of the event bus (services/events), subscribed in
 * src/index.ts. A write emits its events through waitUntil; here one query finds the enabled event
 * triggers of the project for those event names (index on (project_id, event)), filters are matched here, the
 * runs are inserted in one statement (the unique (automation_id, event_key) makes an event produce at most one
 * run per automation, whoever emits it twice), and the runs are handed to the Queue with sendBatch.
 * Writes made by a run carry its depth and cascade; a run deeper than MAX_DEPTH is never created (no loops), nor
 * one its cascade's budget cannot pay for (cascade.ts). The runs are queued at their cascade's pace: past its first
 * burst, each waits its turn (a Queue delay), so one cause cannot crowd out other tenants.
 * Where (docs/scaling.md): a project's triggers, automations, runs and cascade rows live in the shard database its
 * id names, so the events are looked up and their runs created shard by shard, every shard at once.
 */
import type { Env } from "../../env";
import { uncountedD1 } from "../../db/instrument";
import { newId } from "../../lib/ids";
import type { EventInput } from "../events/events";
import { EVENTS_PER_MESSAGE, enqueueAll, type AutomationMessage } from "./messages";
import { cascadeHome, cascadeHomeBinding, createRunsStatements, insertRunsStatement, reserveRunsStatements, startDelaysOf } from "./cascade";
import { groupByShard, newIdBeside, shardBindingForId, shardBindingOfId } from "../../db/shardIds";
import type { ShardBinding } from "../../db/shards";
import { dropUnreadablePointersStatement, ownerReadsSql, remoteAutomationsStatement, triggerOfPointer, type RemoteAutomation } from "./remoteTriggers";

export const MAX_DEPTH = 3;

// The event shape the runner and the cascade planner read.
export type { EventInput } from "../events/events";

interface TriggerRow {
  automation_id: string;
  /** What one run of the automation could spend of its cascade: its non-webhook actions, its webhook actions. */
  planned_writes: number;
  planned_deliveries: number;
  position: number;
  event: string;
  table_id: string | null;
  column_id: string | null;
  document_ids: string | null;
}

function matches(t: Pick<TriggerRow, "table_id" | "column_id" | "document_ids">, e: EventInput): boolean {
  if (t.table_id !== null && t.table_id !== e.tableId) return false;
  if (t.column_id !== null && e.event !== "row.deleted" && !(e.columnIds ?? []).includes(t.column_id)) return false;
  if (t.document_ids !== null) {
    const wanted = JSON.parse(t.document_ids) as string[];
    const have = new Set([e.documentId, ...(e.documentIds ?? [])].filter(Boolean));
    if (!wanted.some((d) => have.has(d))) return false;
  }
  return true;
}

/**
 * Creates and enqueues the runs these events cause. `depth` is the depth of the run whose writes caused them
 * (0 for a person's request). Never throws: the write they follow has already succeeded, so a shard database's
 * events whose runs could not be created (unavailable, or fenced by a move) go to the queue and are tried again
 * there (retryEvents) — each event with its id and the cascade fixed, so a retry creates each run once.
 */
export async function runsForEvents(env: Env, events: readonly EventInput[], depth = 0, cascadeId: string | null = null): Promise<number> {
  if (events.length === 0 || depth + 1 > MAX_DEPTH) return 0;
  // A project id naming no logical shard is no project's: no automation listens to it.
  const known = events.filter((e) => shardBindingOfId(e.projectId) !== null).map((e) => (e.eventId ? e : { ...e, eventId: newId() }));
  const byShard = groupByShard(known, (e) => e.projectId);
  const made = await Promise.all(
    [...byShard].map(async ([binding, list]) => {
      // A person's write starts a cascade, with an id beside the written project (its home is this shard database).
      const cascade = cascadeId ?? newIdBeside(list[0]!.projectId);
      try {
        return await runsOnShard(env, binding, list, depth, cascade, cascadeId !== null);
      } catch (err) {
        await retryLater(env, list, depth, cascade, cascadeId !== null, err);
        return 0;
      }
    }),
  );
  return made.reduce((a, n) => a + n, 0);
}

/** Events whose runs could not be created now, queued to be tried again (messages.ts "events"); a failure of that too is logged. */
async function retryLater(env: Env, events: readonly EventInput[], depth: number, cascadeId: string, causedByRun: boolean, err: unknown): Promise<void> {
  console.error(JSON.stringify({ level: "warn", msg: "automation runs for events deferred to the queue", events: events.length, error: String(err) }));
  const messages: AutomationMessage[] = [];
  for (let i = 0; i < events.length; i += EVENTS_PER_MESSAGE) {
    messages.push({ kind: "events", events: events.slice(i, i + EVENTS_PER_MESSAGE).map((e) => ({ ...e, eventId: e.eventId! })), depth, cascadeId, causedByRun });
  }
  await enqueueAll(env.AUTOMATION_QUEUE, messages, messages.map(() => RETRY_DELAY_S)).catch((again) =>
    console.error(JSON.stringify({ level: "error", msg: "automation event emission failed", events: events.length, error: String(again) })),
  );
}

const RETRY_DELAY_S = 5;

/** The queue's retry of events (retryLater): their runs created as runsForEvents would have; a failure throws, so the queue tries again. */
export async function retryEvents(env: Env, message: Extract<AutomationMessage, { kind: "events" }>): Promise<number> {
  const events = message.events as unknown as EventInput[];
  return runsOnShard(env, shardBindingForId(events[0]!.projectId), events, message.depth, message.cascadeId, message.causedByRun);
}

interface CreatedRuns {
  /** The ids of the runs created. */
  made: Set<string>;
  /** The cascade's clock after their booking (null if the cascade had no row to book on). */
  clock: number | null;
}

/** Runs created and booked in one transaction of `d1`, their cascade's home (createRunsStatements). */
async function createLocalRuns(d1: D1Database, cascadeId: string, projectId: string, runs: unknown[][], depth: number, now: number): Promise<CreatedRuns> {
  const [, inserted, reserved] = await d1.batch<{ id: string; clock?: number }>(createRunsStatements(d1, cascadeId, projectId, runs, depth, now));
  return { made: new Set(inserted!.results.map((r) => r.id)), clock: clockOf(reserved!) };
}

/**
 * Runs of a cascade whose home is another shard database (a run's write reached this organization): booked at home
 * first, so every database the cascade reaches spends its one budget, then created in `d1` (two round trips).
 */
async function createForeignRuns(env: Env, d1: D1Database, cascadeId: string, projectId: string, runs: unknown[][], depth: number, now: number): Promise<CreatedRuns> {
  const home = cascadeHome(env, cascadeId, projectId);
  const [, fit, reserved] = await home.batch<{ id: string; clock?: number }>(reserveRunsStatements(home, cascadeId, projectId, runs, now));
  const booked = new Set(fit!.results.map((r) => r.id));
  const paid = runs.filter((r) => booked.has(r[0] as string));
  if (!paid.length) return { made: new Set(), clock: clockOf(reserved!) };
  const inserted = await insertRunsStatement(d1, cascadeId, paid, depth, now).all<{ id: string }>();
  return { made: new Set(inserted.results.map((r) => r.id)), clock: clockOf(reserved!) };
}

const clockOf = (reserved: D1Result<{ clock?: number }>): number | null => (reserved.results[0]?.clock == null ? null : Number(reserved.results[0].clock));

interface PointerRow {
  automation_id: string;
  position: number;
  event: string;
}

/** The runs to create, by the shard database each goes in (its automation's). Each is [id, automationId, projectId, eventKey, trigger, plannedWrites, plannedDeliveries]. */
type RunsByDatabase = Map<ShardBinding, unknown[][]>;

function addRun(runs: RunsByDatabase, binding: ShardBinding, run: unknown[]) {
  const list = runs.get(binding);
  if (list) list.push(run);
  else runs.set(binding, [run]);
}

const triggerOf = (e: EventInput, eventId: string) =>
  JSON.stringify({ type: "event", event: e.event, projectId: e.projectId, tableId: e.tableId, rowId: e.rowId, documentId: e.documentId, columnIds: e.columnIds, eventId });

/**
 * A trigger an event of its project may fire: its automation and filter, what one run could spend, the shard database
 * the run goes in and the project it is for (null: the event's own).
 */
interface Candidate extends Pick<TriggerRow, "automation_id" | "event" | "table_id" | "column_id" | "document_ids" | "planned_writes" | "planned_deliveries"> {
  target: ShardBinding;
  runProjectId: string | null;
}

/**
 * The triggers the pointers found beside the events' projects stand for (remoteTriggers.ts): each pointer's
 * automation is read in its own database (all at once), and only a trigger it still has counts — its run goes in the
 * automation's database, for the automation's own project. Then, in the watched projects' database `d1`, one
 * statement drops the pointers whose automation's owner can no longer read the watched project: those fire nothing
 * (no run, no record of the event with the owner).
 */
async function pointedCandidates(env: Env, d1: D1Database, pointers: readonly (PointerRow & { projectId: string })[]): Promise<(Candidate & { projectId: string })[]> {
  const found = await Promise.all(
    [...groupByShard(pointers, (p) => p.automation_id)].map(async ([binding, list]) => (await remoteAutomationsStatement(uncountedD1(env[binding]!), list.map((p) => p.automation_id)).all<RemoteAutomation>()).results),
  );
  const automations = new Map(found.flat().map((a) => [a.id, a]));
  const owned = pointers.flatMap((p) => {
    const a = automations.get(p.automation_id);
    return a ? [[a.id, p.projectId, a.owner_id] as const] : [];
  });
  const dropped = owned.length ? (await dropUnreadablePointersStatement(d1, owned).all<{ automation_id: string; project_id: string }>()).results : [];
  const unreadable = new Set(dropped.map((d) => `${d.automation_id}\n${d.project_id}`));
  return pointers.flatMap((p) => {
    const a = automations.get(p.automation_id);
    const t = a && !unreadable.has(`${a.id}\n${p.projectId}`) ? triggerOfPointer(a, p) : null;
    if (!a || !t) return [];
    const target = shardBindingForId(a.id);
    return [{ projectId: p.projectId, automation_id: a.id, event: t.event, table_id: t.tableId, column_id: t.columnId, document_ids: t.documentIds, planned_writes: a.planned_writes, planned_deliveries: a.planned_deliveries, target, runProjectId: a.project_id }];
  });
}

/** The trigger lookup's access condition: the automation's owner still reads the project whose event it is. */
const OWNER_READS_EVENT_PROJECT = ownerReadsSql("a.owner_id", "t.project_id");

/**
 * runsForEvents for the events of projects in one shard database (`binding`), each with its `eventId`, in the
 * cascade `cascade` (`causedByRun`: continued by a run's writes, not begun by a person's). The events' projects'
 * triggers are read here: the rows of automations beside them and the pointers of automations elsewhere, in one
 * batch. A trigger whose automation's owner can no longer read the event's project fires nothing: the rows beside
 * it are filtered out in that lookup, the pointers dropped by pointedCandidates (the runner's start-of-run check
 * still stands for access lost between this lookup and the run).
 */
async function runsOnShard(env: Env, binding: ShardBinding, events: readonly EventInput[], depth: number, cascade: string, causedByRun: boolean): Promise<number> {
  const d1 = uncountedD1(env[binding]!);
  const byProject = new Map<string, EventInput[]>();
  for (const e of events) byProject.set(e.projectId, [...(byProject.get(e.projectId) ?? []), e]);
  const lookups = [...byProject.entries()].flatMap(([projectId, list]) => {
    const names = JSON.stringify([...new Set(list.map((e) => e.event))]);
    return [
      d1
        .prepare(
          `SELECT t.automation_id, t.position, t.event, t.table_id, t.column_id, t.document_ids,
             (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' <> 'webhook') AS planned_writes,
             (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' = 'webhook') AS planned_deliveries
           FROM automation_event_triggers t
           JOIN automations a ON a.id = t.automation_id
           WHERE t.project_id = ?1 AND t.event IN (SELECT value FROM json_each(?2)) AND a.enabled = 1 AND a.is_deleted = 0
             AND ${OWNER_READS_EVENT_PROJECT}`,
        )
        .bind(projectId, names),
      d1.prepare(`SELECT automation_id, position, event FROM automation_remote_triggers WHERE project_id = ?1 AND event IN (SELECT value FROM json_each(?2))`).bind(projectId, names),
    ];
  });
  const results = await d1.batch<TriggerRow & PointerRow>(lookups);
  const now = Date.now();
  const runs: RunsByDatabase = new Map();
  const eventIds = new Map(events.map((e) => [e, e.eventId ?? newId()]));
  // Each project's triggers: the rows beside it (runs here, for the event's project), then what its pointers stand for.
  const candidates = new Map<string, Candidate[]>();
  const pointers: (PointerRow & { projectId: string })[] = [];
  [...byProject.keys()].forEach((projectId, i) => {
    candidates.set(projectId, results[2 * i]!.results.map((t): Candidate => ({ ...t, target: binding, runProjectId: null })));
    pointers.push(...results[2 * i + 1]!.results.map((p) => ({ automation_id: p.automation_id, position: p.position, event: p.event, projectId })));
  });
  if (pointers.length) for (const c of await pointedCandidates(env, d1, pointers)) candidates.get(c.projectId)!.push(c);
  for (const [projectId, list] of byProject) {
    const triggers = candidates.get(projectId)!;
    for (const e of list) {
      const eventId = eventIds.get(e)!;
      const seen = new Set<string>();
      for (const t of triggers) {
        if (t.event !== e.event || seen.has(t.automation_id) || !matches(t, e)) continue;
        seen.add(t.automation_id);
        addRun(runs, t.target, [newIdBeside(t.automation_id), t.automation_id, t.runProjectId ?? e.projectId, `event:${eventId}`, triggerOf(e, eventId), t.planned_writes, t.planned_deliveries]);
      }
    }
  }
  if (!runs.size) return 0;
  // Only the runs the cascade can still pay for are created, reserving what they could spend (cascade.ts): in one
  // transaction where the cascade's row is (its home), booked there first elsewhere.
  const projectId = events[0]!.projectId;
  const home = cascadeHomeBinding(cascade, projectId);
  const made = await Promise.all(
    [...runs].map(async ([target, list]) => {
      const td1 = uncountedD1(env[target]!);
      const { made, clock } = target === home ? await createLocalRuns(td1, cascade, projectId, list, depth + 1, now) : await createForeignRuns(env, td1, cascade, projectId, list, depth + 1, now);
      // In the order they were planned (each one's turn follows the cost of those before it).
      const created = list.filter((r) => made.has(r[0] as string));
      const delays = startDelaysOf(causedByRun, clock ?? now, now, created.map((r) => Number(r[5]) + Number(r[6])));
      await enqueueAll(env.AUTOMATION_QUEUE, created.map((r) => ({ kind: "run" as const, runId: r[0] as string })), delays);
      return created.length;
    }),
  );
  return made.reduce((a, n) => a + n, 0);
}
