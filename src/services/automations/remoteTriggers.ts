/**
 * Event triggers across organizations (docs/scaling.md "Triggers across organizations"). An event trigger may watch
 * a project of another organization the caller can read; that project's events are looked up in its own shard
 * database, so the trigger leaves a pointer there (`automation_remote_triggers`: project, event, automation,
 * position). The pointer only says where to ask: whether the trigger fires, and with which filter, is read from
 * the automation's own `triggers` in its database (triggerOfPointer, used by events.ts), so a pointer left behind
 * by a change, a delete or a failed write never fires anything. Pointers are written before the automation (a
 * failure leaves one too many, never one too few) and those of an earlier version dropped once a change holds.
 */
import type { StoredTrigger } from "../../db/schema";
import { readableProjectsStatement, type AutomationRow } from "../../auth/access";
import { d1Of } from "../../db/d1";
import type { ServiceContext } from "../context";
import { notFound } from "../../errors";
import { dropRemoteTriggersStatement, writeRemoteTriggersStatement } from "./queries";

/** An event trigger's pointer: the watched project, the event, the automation and the trigger's position in it. */
export interface RemoteTrigger {
  projectId: string;
  event: string;
  automationId: string;
  position: number;
}

/**
 * The pointers of `triggers` for the automation (those watching a project of another logical shard), after checking
 * in each watched project's database that the caller can read it: one statement per database, all at once, that
 * writes only the pointers of readable projects (at `version`, the automation's version they are for) and answers
 * which it wrote. Any watched project the caller cannot read is 404, as for a missing one.
 */
export async function writeRemoteTriggers(
  ctx: ServiceContext,
  pointers: readonly RemoteTrigger[],
  version: number,
): Promise<void> {
  if (!pointers.length) return;
  const written = await Promise.all(
    ctx
      .byShard(pointers, (p) => p.projectId)
      .map(async ([there, list]) => {
        const db = there.db;
        const readable = readableProjectsStatement(db, ctx.user._id, [
          ...new Set(list.map((p) => p.projectId)),
        ]).toSQL();
        const rows = await writeRemoteTriggersStatement(d1Of(db), version, list, readable).all<{
          project_id: string;
        }>();
        return rows.results.map((r) => r.project_id);
      }),
  );
  const readable = new Set(written.flat());
  if (pointers.some((p) => !readable.has(p.projectId))) throw notFound("Project");
}

/**
 * Drops the automation's pointers of versions before `version` (all of them without one) in the databases of
 * `projectIds`, after the response: a pointer left behind never fires (see the file's head), so this only tidies.
 */
export function dropRemoteTriggers(
  ctx: ServiceContext,
  automationId: string,
  projectIds: readonly string[],
  version: number | null = null,
): void {
  const databases = ctx.byShard(new Set(projectIds), (p) => p);
  if (!databases.length) return;
  const work = Promise.all(
    databases.map(([there]) =>
      dropRemoteTriggersStatement(d1Of(there.db), automationId, version ?? Number.MAX_SAFE_INTEGER).run(),
    ),
  ).catch((err) =>
    console.error(
      JSON.stringify({
        level: "warn",
        msg: "dropping remote trigger pointers failed",
        automationId,
        error: String(err),
      }),
    ),
  );
  ctx.waitUntil(work);
}

/** An automation as the events of another database see it: enabled and not deleted, with what one run could spend. */
export interface RemoteAutomation {
  id: string;
  project_id: string;
  owner_id: string;
  triggers: string;
  planned_writes: number;
  planned_deliveries: number;
}

/** The rows an automation's event triggers give: what each watches (project, event) and its filter. */
export function eventTriggerRows(a: Pick<AutomationRow, "id" | "projectId">, triggers: StoredTrigger[]) {
  return triggers.flatMap((t, position) => {
    if (typeof t.event !== "string") return [];
    const f = (t.filter as Record<string, unknown> | null) ?? {};
    const docs = [f.documentId, ...((f.documentIds as string[] | null) ?? [])].filter(
      (d): d is string => typeof d === "string",
    );
    return [
      {
        automationId: a.id,
        position,
        projectId: (t.projectId as string | null) ?? a.projectId,
        event: t.event,
        tableId: (f.tableId as string | null) ?? null,
        columnId: (f.columnId as string | null) ?? null,
        documentIds: docs.length ? JSON.stringify(docs) : null,
      },
    ];
  });
}

/**
 * The row of the trigger a pointer names, if the automation still has it as the pointer says (an event trigger at
 * that position, for that event, watching that project); null for a pointer left behind.
 */
export function triggerOfPointer(a: RemoteAutomation, pointer: { position: number; event: string; projectId: string }) {
  const row = eventTriggerRows({ id: a.id, projectId: a.project_id }, JSON.parse(a.triggers) as StoredTrigger[]).find(
    (r) => r.position === pointer.position,
  );
  return row && row.event === pointer.event && row.projectId === pointer.projectId ? row : null;
}
