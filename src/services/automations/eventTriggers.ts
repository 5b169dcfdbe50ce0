/**
 * Which triggers an event fires (docs/api-guide.md › Automations, published portals, collaborative editing): the
 * enabled event triggers of the events' projects, read in one batch of their shard database — the rows of
 * automations beside them (index on (project_id, event)) and the pointers of automations in another organization's
 * database (remoteTriggers.ts), whose automations are read where they live — then the filters matched, giving the
 * runs to create by the database each goes in. The consumer that creates and queues them: events.ts.
 */
import type { Env } from "../../env";
import { uncountedD1 } from "../../db/instrument";
import type { EventInput } from "../events/events";
import { bindingHolding, groupByShard, type ShardBinding } from "./shards";
import { idsWithoutContext } from "../context";
import { triggerOfPointer, type RemoteAutomation } from "./remoteTriggers";
import { dropUnreadablePointersStatement, eventTriggerLookupStatements, remoteAutomationsStatement } from "./queries";

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

interface PointerRow {
  automation_id: string;
  position: number;
  event: string;
}

/** The runs to create, by the shard database each goes in (its automation's). Each is [id, automationId, projectId, eventKey, trigger, plannedWrites, plannedDeliveries]. */
export type RunsByDatabase = Map<ShardBinding, unknown[][]>;

function addRun(runs: RunsByDatabase, binding: ShardBinding, run: unknown[]) {
  const list = runs.get(binding);
  if (list) list.push(run);
  else runs.set(binding, [run]);
}

const triggerOf = (e: EventInput, eventId: string) =>
  JSON.stringify({
    type: "event",
    event: e.event,
    projectId: e.projectId,
    tableId: e.tableId,
    rowId: e.rowId,
    documentId: e.documentId,
    columnIds: e.columnIds,
    eventId,
  });

/**
 * A trigger an event of its project may fire: its automation and filter, what one run could spend, the shard database
 * the run goes in and the project it is for (null: the event's own).
 */
interface Candidate extends Pick<
  TriggerRow,
  "automation_id" | "event" | "table_id" | "column_id" | "document_ids" | "planned_writes" | "planned_deliveries"
> {
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
export async function pointedCandidates(
  env: Env,
  d1: D1Database,
  pointers: readonly (PointerRow & { projectId: string })[],
): Promise<(Candidate & { projectId: string })[]> {
  const found = await Promise.all(
    [...groupByShard(pointers, (p) => p.automation_id)].map(
      async ([binding, list]) =>
        (
          await remoteAutomationsStatement(
            uncountedD1(env[binding]!),
            list.map((p) => p.automation_id),
          ).all<RemoteAutomation>()
        ).results,
    ),
  );
  const automations = new Map(found.flat().map((a) => [a.id, a]));
  const owned = pointers.flatMap((p) => {
    const a = automations.get(p.automation_id);
    return a ? [[a.id, p.projectId, a.owner_id] as const] : [];
  });
  const dropped = owned.length
    ? (await dropUnreadablePointersStatement(d1, owned).all<{ automation_id: string; project_id: string }>()).results
    : [];
  const unreadable = new Set(dropped.map((d) => `${d.automation_id}\n${d.project_id}`));
  return pointers.flatMap((p) => {
    const a = automations.get(p.automation_id);
    const t = a && !unreadable.has(`${a.id}\n${p.projectId}`) ? triggerOfPointer(a, p) : null;
    if (!a || !t) return [];
    const target = bindingHolding(a.id);
    return [
      {
        projectId: p.projectId,
        automation_id: a.id,
        event: t.event,
        table_id: t.tableId,
        column_id: t.columnId,
        document_ids: t.documentIds,
        planned_writes: a.planned_writes,
        planned_deliveries: a.planned_deliveries,
        target,
        runProjectId: a.project_id,
      },
    ];
  });
}

interface TriggerLookup {
  /** Each project's triggers beside it (their runs go here, for the event's project). */
  candidates: Map<string, Candidate[]>;
  /** The pointers found beside the projects, for pointedCandidates. */
  pointers: (PointerRow & { projectId: string })[];
}

/**
 * The events' projects' triggers, in one batch of the shard database `binding`: the rows of automations
 * beside them and the pointers of automations elsewhere. A trigger whose automation's owner can no longer read the
 * event's project is filtered out in this lookup.
 */
export async function lookupTriggers(
  env: Env,
  binding: ShardBinding,
  byProject: Map<string, EventInput[]>,
): Promise<TriggerLookup> {
  const d1 = uncountedD1(env[binding]!);
  const lookups = [...byProject.entries()].flatMap(([projectId, list]) => {
    const names = JSON.stringify([...new Set(list.map((e) => e.event))]);
    return eventTriggerLookupStatements(d1, projectId, names);
  });
  const results = await d1.batch<TriggerRow & PointerRow>(lookups);
  // Each project's triggers: the rows beside it (runs here, for the event's project), then what its pointers stand for.
  const candidates = new Map<string, Candidate[]>();
  const pointers: (PointerRow & { projectId: string })[] = [];
  [...byProject.keys()].forEach((projectId, i) => {
    candidates.set(
      projectId,
      results[2 * i]!.results.map((t): Candidate => ({ ...t, target: binding, runProjectId: null })),
    );
    pointers.push(
      ...results[2 * i + 1]!.results.map((p) => ({
        automation_id: p.automation_id,
        position: p.position,
        event: p.event,
        projectId,
      })),
    );
  });
  return { candidates, pointers };
}

/** The runs the events cause, by the database each goes in: each trigger that matches, once per automation and event. */
export function plannedRuns(
  byProject: Map<string, EventInput[]>,
  candidates: Map<string, Candidate[]>,
  eventIds: Map<EventInput, string>,
): RunsByDatabase {
  const runs: RunsByDatabase = new Map();
  for (const [projectId, list] of byProject) {
    const triggers = candidates.get(projectId)!;
    for (const e of list) {
      const eventId = eventIds.get(e)!;
      const seen = new Set<string>();
      for (const t of triggers) {
        if (t.event !== e.event || seen.has(t.automation_id) || !matches(t, e)) continue;
        seen.add(t.automation_id);
        addRun(runs, t.target, [
          idsWithoutContext.beside(t.automation_id),
          t.automation_id,
          t.runProjectId ?? e.projectId,
          `event:${eventId}`,
          triggerOf(e, eventId),
          t.planned_writes,
          t.planned_deliveries,
        ]);
      }
    }
  }
  return runs;
}
