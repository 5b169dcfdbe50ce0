/**
 * Events → runs (docs/api-guide.md › Automations, published portals, collaborative editing): the automations'
 * consumer of the event bus (services/events), subscribed in src/index.ts, for every event but the row events, new
 * documents and new comments (their runs start from the change log: logTriggers.ts, LOG_EVENTS below). A write
 * emits its events through waitUntil; one query finds the enabled event triggers of the project for those event
 * names (index on (project_id, event)) and the filters are matched (eventTriggers.ts); here the runs are inserted in
 * one statement (the unique (automation_id, event_key) makes an event produce at most one run per automation, whoever
 * emits it twice), and the runs are handed to the Queue with sendBatch.
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
import { cascadeHome, cascadeHomeBinding, startDelaysOf } from "./cascade";
import { createRunsStatements, insertRunsStatement, reserveRunsStatements } from "./cascadeQueries";
import { bindingHolding, groupByShard, namesLogicalShard, type ShardBinding } from "./shards";
import { idsWithoutContext } from "../context";
import { lookupTriggers, plannedRuns, pointedCandidates, type RunsByDatabase } from "./eventTriggers";

export const MAX_DEPTH = 3;

/**
 * The event kinds whose runs are started from the change log (logTriggers.ts), not from the bus: their events only
 * nudge that reading (nudgeLogTriggers), so a write whose after-response work never runs still starts its runs.
 */
export const LOG_EVENTS: ReadonlySet<string> = new Set([
  "row.created",
  "row.updated",
  "row.deleted",
  "document.created",
  "comment.created",
]);

// The event shape the runner and the cascade planner read.
export type { EventInput } from "../events/events";
/**
 * Creates and enqueues the runs these events cause. `depth` is the depth of the run whose writes caused them
 * (0 for a person's request). Never throws: the write they follow has already succeeded, so a shard database's
 * events whose runs could not be created (unavailable, or fenced by a move) go to the queue and are tried again
 * there (retryEvents) — each event with its id and the cascade fixed, so a retry creates each run once.
 */
export async function runsForEvents(
  env: Env,
  events: readonly EventInput[],
  depth = 0,
  cascadeId: string | null = null,
): Promise<number> {
  if (events.length === 0 || depth + 1 > MAX_DEPTH) return 0;
  // A project id naming no logical shard is no project's: no automation listens to it.
  const known = events
    .filter((e) => namesLogicalShard(e.projectId) && !LOG_EVENTS.has(e.event))
    .map((e) => (e.eventId ? e : { ...e, eventId: newId() }));
  const byShard = groupByShard(known, (e) => e.projectId);
  const made = await Promise.all(
    [...byShard].map(async ([binding, list]) => {
      // A person's write starts a cascade, with an id beside the written project (its home is this shard database).
      const cascade = cascadeId ?? idsWithoutContext.beside(list[0]!.projectId);
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
async function retryLater(
  env: Env,
  events: readonly EventInput[],
  depth: number,
  cascadeId: string,
  causedByRun: boolean,
  err: unknown,
): Promise<void> {
  console.error(
    JSON.stringify({
      level: "warn",
      msg: "automation runs for events deferred to the queue",
      events: events.length,
      error: String(err),
    }),
  );
  const messages: AutomationMessage[] = [];
  for (let i = 0; i < events.length; i += EVENTS_PER_MESSAGE) {
    messages.push({
      kind: "events",
      events: events.slice(i, i + EVENTS_PER_MESSAGE).map((e) => ({ ...e, eventId: e.eventId! })),
      depth,
      cascadeId,
      causedByRun,
    });
  }
  await enqueueAll(
    env.AUTOMATION_QUEUE,
    messages,
    messages.map(() => RETRY_DELAY_S),
  ).catch((again) =>
    console.error(
      JSON.stringify({
        level: "error",
        msg: "automation event emission failed",
        events: events.length,
        error: String(again),
      }),
    ),
  );
}

const RETRY_DELAY_S = 5;

/** The queue's retry of events (retryLater): their runs created as runsForEvents would have; a failure throws, so the queue tries again. */
export async function retryEvents(env: Env, message: Extract<AutomationMessage, { kind: "events" }>): Promise<number> {
  const events = message.events as unknown as EventInput[];
  return runsOnShard(
    env,
    bindingHolding(events[0]!.projectId),
    events,
    message.depth,
    message.cascadeId,
    message.causedByRun,
  );
}

interface CreatedRuns {
  /** The ids of the runs created. */
  made: Set<string>;
  /** The cascade's clock after their booking (null if the cascade had no row to book on). */
  clock: number | null;
}

/** Runs created and booked in one transaction of `d1`, their cascade's home (createRunsStatements). */
async function createLocalRuns(
  d1: D1Database,
  cascadeId: string,
  projectId: string,
  runs: unknown[][],
  depth: number,
  now: number,
): Promise<CreatedRuns> {
  const [, inserted, reserved] = await d1.batch<{ id: string; clock?: number }>(
    createRunsStatements(d1, cascadeId, projectId, runs, depth, now),
  );
  return { made: new Set(inserted!.results.map((r) => r.id)), clock: clockOf(reserved!) };
}

/**
 * Runs of a cascade whose home is another shard database (a run's write reached this organization): booked at home
 * first, so every database the cascade reaches spends its one budget, then created in `d1` (two round trips).
 */
async function createForeignRuns(
  env: Env,
  d1: D1Database,
  cascadeId: string,
  projectId: string,
  runs: unknown[][],
  depth: number,
  now: number,
): Promise<CreatedRuns> {
  const home = cascadeHome(env, cascadeId, projectId);
  const [, fit, reserved] = await home.batch<{ id: string; clock?: number }>(
    reserveRunsStatements(home, cascadeId, projectId, runs, now),
  );
  const booked = new Set(fit!.results.map((r) => r.id));
  const paid = runs.filter((r) => booked.has(r[0] as string));
  if (!paid.length) return { made: new Set(), clock: clockOf(reserved!) };
  const inserted = await insertRunsStatement(d1, cascadeId, paid, depth, now).all<{ id: string }>();
  return { made: new Set(inserted.results.map((r) => r.id)), clock: clockOf(reserved!) };
}

const clockOf = (reserved: D1Result<{ clock?: number }>): number | null =>
  reserved.results[0]?.clock == null ? null : Number(reserved.results[0].clock);

/**
 * runsForEvents for the events of projects in one shard database (`binding`), each with its `eventId`, in the
 * cascade `cascade` (`causedByRun`: continued by a run's writes, not begun by a person's). The events' projects'
 * triggers are read here: the rows of automations beside them and the pointers of automations elsewhere, in one
 * batch. A trigger whose automation's owner can no longer read the event's project fires nothing: the rows beside
 * it are filtered out in that lookup, the pointers dropped by pointedCandidates (the runner's start-of-run check
 * still stands for access lost between this lookup and the run).
 */
export async function runsOnShard(
  env: Env,
  binding: ShardBinding,
  events: readonly EventInput[],
  depth: number,
  cascade: string,
  causedByRun: boolean,
): Promise<number> {
  const d1 = uncountedD1(env[binding]!);
  const byProject = new Map<string, EventInput[]>();
  for (const e of events) byProject.set(e.projectId, [...(byProject.get(e.projectId) ?? []), e]);
  const { candidates, pointers } = await lookupTriggers(env, binding, byProject);
  const now = Date.now();
  const eventIds = new Map(events.map((e) => [e, e.eventId ?? newId()]));
  if (pointers.length) for (const c of await pointedCandidates(env, d1, pointers)) candidates.get(c.projectId)!.push(c);
  const runs = plannedRuns(byProject, candidates, eventIds);
  if (!runs.size) return 0;
  return createAndEnqueue(env, runs, { cascade, projectId: events[0]!.projectId, depth, now, causedByRun });
}

/** How planned runs are created: in `cascade` (its home beside `projectId`), one deeper than `depth`, at `now`. */
interface RunCreation {
  cascade: string;
  projectId: string;
  depth: number;
  now: number;
  causedByRun: boolean;
}

/**
 * Only the runs the cascade can still pay for are created, reserving what they could spend (cascade.ts): in one
 * transaction where the cascade's row is (its home), booked there first elsewhere. Then they are queued at the
 * cascade's pace; returns how many were created.
 */
async function createAndEnqueue(
  env: Env,
  runs: RunsByDatabase,
  { cascade, projectId, depth, now, causedByRun }: RunCreation,
): Promise<number> {
  const home = cascadeHomeBinding(cascade, projectId);
  const made = await Promise.all(
    [...runs].map(async ([target, list]) => {
      const td1 = uncountedD1(env[target]!);
      const { made, clock } =
        target === home
          ? await createLocalRuns(td1, cascade, projectId, list, depth + 1, now)
          : await createForeignRuns(env, td1, cascade, projectId, list, depth + 1, now);
      // In the order they were planned (each one's turn follows the cost of those before it).
      const created = list.filter((r) => made.has(r[0] as string));
      const delays = startDelaysOf(
        causedByRun,
        clock ?? now,
        now,
        created.map((r) => Number(r[5]) + Number(r[6])),
      );
      await enqueueAll(
        env.AUTOMATION_QUEUE,
        created.map((r) => ({ kind: "run" as const, runId: r[0] as string })),
        delays,
      );
      return created.length;
    }),
  );
  return made.reduce((a, n) => a + n, 0);
}
