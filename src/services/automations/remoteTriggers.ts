/**
 * Event triggers across organizations (docs/scaling.md "Triggers across organizations"). An event trigger may watch
 * a project of another organization the caller can read; that project's events are looked up in its own shard
 * database, so the trigger leaves a pointer there (`automation_remote_triggers`: project, event, automation,
 * position). The pointer only says where to ask: whether the trigger fires, and with which filter, is read from
 * the automation's own `triggers` in its database (triggerOfPointer, used by events.ts), so a pointer left behind
 * by a change, a delete or a failed write never fires anything. Pointers are written before the automation (a
 * failure leaves one too many, never one too few) and those of an earlier version dropped once a change holds.
 */
import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { StoredTrigger } from "../../db/schema";
import { projectReadableBy, readableProjectsStatement, type AutomationRow } from "../../auth/access";
import { d1Of } from "../../db/d1";
import type { ServiceContext } from "../context";
import { notFound } from "../../errors";

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
        const rows = await d1Of(db)
          .prepare(
            `INSERT INTO automation_remote_triggers (project_id, event, automation_id, position, version)
           SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, ? FROM json_each(?) j
           WHERE j.value ->> 0 IN (${readable.sql})
           ON CONFLICT (project_id, event, automation_id, position) DO UPDATE SET version = MAX(version, excluded.version)
           RETURNING project_id`,
          )
          .bind(
            version,
            JSON.stringify(list.map((p) => [p.projectId, p.event, p.automationId, p.position])),
            ...readable.params,
          )
          .all<{ project_id: string }>();
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
      d1Of(there.db)
        .prepare(`DELETE FROM automation_remote_triggers WHERE automation_id = ?1 AND version < ?2`)
        .bind(automationId, version ?? Number.MAX_SAFE_INTEGER)
        .run(),
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

/** The statement that reads, in the automations' database `d1`, those of `ids` that are enabled and not deleted. */
export function remoteAutomationsStatement(d1: D1Database, ids: readonly string[]): D1PreparedStatement {
  return d1
    .prepare(
      `SELECT a.id, a.project_id, a.owner_id, a.triggers,
         (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' <> 'webhook') AS planned_writes,
         (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' = 'webhook') AS planned_deliveries
       FROM automations a WHERE a.id IN (SELECT value FROM json_each(?1)) AND a.enabled = 1 AND a.is_deleted = 0`,
    )
    .bind(JSON.stringify([...new Set(ids)]));
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

/**
 * The project read rule (auth/access.ts projectReadableBy) as SQL text over two column expressions of the
 * enclosing statement — `owner` reads `project` — for raw statements: it binds no parameter, so it fits anywhere.
 */
export function ownerReadsSql(owner: string, project: string): string {
  const { sql: text, params } = new SQLiteSyncDialect().sqlToQuery(
    projectReadableBy(sql.raw(owner), sql.raw(project)).getSQL(),
  );
  if (params.length) throw new Error("ownerReadsSql: the read rule bound a parameter");
  return text;
}

/**
 * In the watched projects' database `d1`: drops the pointers (automation, project) whose automation's owner can no
 * longer read the project (docs/api-guide.md › Automations: such an event creates no run), answering which it
 * dropped. `pointers` are [automationId, projectId, ownerId]. A pointer dropped stays dropped: saving the
 * automation's triggers again, once its owner reads the project, writes it anew.
 */
export function dropUnreadablePointersStatement(
  d1: D1Database,
  pointers: readonly (readonly [string, string, string])[],
): D1PreparedStatement {
  return d1
    .prepare(
      `DELETE FROM automation_remote_triggers AS p
       WHERE p.project_id IN (SELECT value ->> 1 FROM json_each(?1))
         AND EXISTS (SELECT 1 FROM json_each(?1) j WHERE j.value ->> 0 = p.automation_id AND j.value ->> 1 = p.project_id
           AND NOT ${ownerReadsSql("j.value ->> 2", "p.project_id")})
       RETURNING automation_id, project_id`,
    )
    .bind(JSON.stringify(pointers));
}
