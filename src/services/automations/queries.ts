/**
 * The automations' raw statements (docs/architecture.md, "Statements"): what Drizzle's builders cannot express
 * (UPDATE … RETURNING over a fence condition, json_each writes in chunks), built here and run by the area's services.
 */
import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { projectReadableBy } from "../../auth/access";
import { statement } from "../../db/d1";
import { writableHereSql } from "../context";

/** How long a claim holds a due automation (scheduler.ts): one that dies after claiming falls due again after it. */
const LEASE_MS = 5 * 60_000;
/** Runs, deliveries and cascades older than this are swept. */
const RETENTION_MS = 90 * 24 * 60 * 60_000;
/** Longest a run can take (maxDurationMs upper bound) plus slack; a run `running` longer was interrupted. */
const STALE_RUNNING_MS = 900_000 + 5 * 60_000;
/** A run still `queued` this long after it was made is enqueued again. */
const STALE_QUEUED_MS = 15 * 60_000;

/** Rows per json_each statement, so each bound value stays far below D1's 2 MB limit. */
export const CHUNK = 2_000;

/** The scheduler's claim: every due automation of this shard database leased to `token` (scheduler.ts, step 1). */
export function claimDueStatement(d1: D1Database, token: string, now: number): D1PreparedStatement {
  return statement(
    d1,
    `UPDATE automations SET claimed_for = next_run_at, next_run_at = ?1, claim_token = ?2
       WHERE next_run_at <= ?3 AND enabled = 1 AND is_deleted = 0 AND ${writableHereSql("automations.workspace_id")}
       RETURNING id, project_id, triggers, claimed_for`,
    now + LEASE_MS,
    token,
    now,
  );
}

/** The claimed automations' next instants (`[id, next]`), written where `token`'s claim still holds, a chunk each. */
export function nextRunStatements(
  d1: D1Database,
  nextTimes: readonly [string, number | null][],
  token: string,
): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < nextTimes.length; i += CHUNK)
    statements.push(
      statement(
        d1,
        `UPDATE automations SET next_run_at = j.value ->> 1, claim_token = NULL
           FROM json_each(?1) j WHERE automations.id = j.value ->> 0 AND automations.claim_token = ?2`,
        JSON.stringify(nextTimes.slice(i, i + CHUNK)),
        token,
      ),
    );
  return statements;
}

/** The scheduled runs (`[id, automationId, projectId, eventKey, trigger]`), once per instant, returning the new ids. */
export function scheduledRunStatements(d1: D1Database, runs: readonly unknown[][], now: number): D1PreparedStatement[] {
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < runs.length; i += CHUNK)
    statements.push(
      statement(
        d1,
        `INSERT INTO automation_runs (id, automation_id, project_id, event_key, "trigger", depth, cascade_id, status, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
           SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, 1, j.value ->> 0, 'queued', 0, 0, 0, '[]', '[]', ?2, ?2
           FROM json_each(?1) j WHERE true
           ON CONFLICT (automation_id, event_key) DO NOTHING RETURNING id`,
        JSON.stringify(runs.slice(i, i + CHUNK)),
        now,
      ),
    );
  return statements;
}

/**
 * The tick's sweep, one batch: old runs and deliveries deleted, runs stuck `running` (3rd result) and still
 * `queued` (4th) selected, old cascades and per-day counters deleted.
 */
export function sweepStatements(d1: D1Database, now: number): D1PreparedStatement[] {
  return [
    statement(
      d1,
      `DELETE FROM automation_runs WHERE id IN (SELECT id FROM automation_runs WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_deliveries WHERE id IN (SELECT id FROM automation_deliveries WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `SELECT id FROM automation_runs WHERE status = 'running' AND started_at < ?1 LIMIT 100`,
      now - STALE_RUNNING_MS,
    ),
    statement(
      d1,
      `SELECT id FROM automation_runs WHERE status = 'queued' AND created_at < ?1 LIMIT 1000`,
      now - STALE_QUEUED_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_cascades WHERE id IN (SELECT id FROM automation_cascades WHERE created_at < ?1 LIMIT 5000)`,
      now - RETENTION_MS,
    ),
    statement(
      d1,
      `DELETE FROM automation_project_days WHERE day < ?1`,
      new Date(now - 2 * 86_400_000).toISOString().slice(0, 10),
    ),
  ];
}

/**
 * In a watched projects' database: writes the pointers `list` (remoteTriggers.ts) at `version`, only those whose
 * project is among `readable` (the caller's readable projects, auth/access.ts readableProjectsStatement), answering
 * the project of each it wrote.
 */
export function writeRemoteTriggersStatement(
  d1: D1Database,
  version: number,
  list: readonly { projectId: string; event: string; automationId: string; position: number }[],
  readable: { sql: string; params: unknown[] },
): D1PreparedStatement {
  return statement(
    d1,
    `INSERT INTO automation_remote_triggers (project_id, event, automation_id, position, version)
       SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, ? FROM json_each(?) j
       WHERE j.value ->> 0 IN (${readable.sql})
       ON CONFLICT (project_id, event, automation_id, position) DO UPDATE SET version = MAX(version, excluded.version)
       RETURNING project_id`,
    version,
    JSON.stringify(list.map((p) => [p.projectId, p.event, p.automationId, p.position])),
    ...readable.params,
  );
}

/** Drops the automation's pointers of versions before `version` in one watched projects' database. */
export function dropRemoteTriggersStatement(d1: D1Database, automationId: string, version: number) {
  return statement(
    d1,
    `DELETE FROM automation_remote_triggers WHERE automation_id = ?1 AND version < ?2`,
    automationId,
    version,
  );
}

/** The statement that reads, in the automations' database `d1`, those of `ids` that are enabled and not deleted. */
export function remoteAutomationsStatement(d1: D1Database, ids: readonly string[]): D1PreparedStatement {
  return statement(
    d1,
    `SELECT a.id, a.project_id, a.owner_id, a.triggers,
         (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' <> 'webhook') AS planned_writes,
         (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' = 'webhook') AS planned_deliveries
       FROM automations a WHERE a.id IN (SELECT value FROM json_each(?1)) AND a.enabled = 1 AND a.is_deleted = 0`,
    JSON.stringify([...new Set(ids)]),
  );
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
  return statement(
    d1,
    `DELETE FROM automation_remote_triggers AS p
       WHERE p.project_id IN (SELECT value ->> 1 FROM json_each(?1))
         AND EXISTS (SELECT 1 FROM json_each(?1) j WHERE j.value ->> 0 = p.automation_id AND j.value ->> 1 = p.project_id
           AND NOT ${ownerReadsSql("j.value ->> 2", "p.project_id")})
       RETURNING automation_id, project_id`,
    JSON.stringify(pointers),
  );
}

/**
 * A PATCH's new event-trigger rows (`[automationId, position, projectId, event, tableId, columnId, documentIds]`),
 * replacing the old ones only when the automation's UPDATE to `version` with `triggers` is the one that held.
 */
export function replaceEventTriggersStatements(
  d1: D1Database,
  input: { id: string; version: number; triggers: unknown[]; rows: unknown[][] },
): D1PreparedStatement[] {
  const { id, version } = input;
  const triggers = JSON.stringify(input.triggers);
  const mine = `(SELECT version = ?2 AND triggers = ?3 FROM automations WHERE id = ?1)`;
  return [
    statement(d1, `DELETE FROM automation_event_triggers WHERE automation_id = ?1 AND ${mine}`, id, version, triggers),
    statement(
      d1,
      `INSERT INTO automation_event_triggers (automation_id, position, project_id, event, table_id, column_id, document_ids)
         SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6
         FROM json_each(?4) j WHERE ${mine}`,
      id,
      version,
      triggers,
      JSON.stringify(input.rows),
    ),
  ];
}

/** The trigger lookup's access condition: the automation's owner still reads the project whose event it is. */
const OWNER_READS_EVENT_PROJECT = ownerReadsSql("a.owner_id", "t.project_id");

/**
 * In the events' project's database: the triggers of automations beside the project watching `names` (a JSON array
 * of event names) whose owner still reads it, then the pointers of automations elsewhere (remoteTriggers.ts).
 */
export function eventTriggerLookupStatements(d1: D1Database, projectId: string, names: string) {
  return [
    statement(
      d1,
      `SELECT t.automation_id, t.position, t.event, t.table_id, t.column_id, t.document_ids,
           (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' <> 'webhook') AS planned_writes,
           (SELECT count(*) FROM json_each(a.actions) x WHERE x.value ->> '$.spec.kind' = 'webhook') AS planned_deliveries
         FROM automation_event_triggers t
         JOIN automations a ON a.id = t.automation_id
         WHERE t.project_id = ?1 AND t.event IN (SELECT value FROM json_each(?2)) AND a.enabled = 1 AND a.is_deleted = 0
           AND ${OWNER_READS_EVENT_PROJECT}`,
      projectId,
      names,
    ),
    statement(
      d1,
      `SELECT automation_id, position, event FROM automation_remote_triggers WHERE project_id = ?1 AND event IN (SELECT value FROM json_each(?2))`,
      projectId,
      names,
    ),
  ];
}

// The change log read for the event triggers of the log's kinds (logTriggers.ts).

/** The event kinds among `kinds` (a JSON array) that triggers watch in `project`: rows beside it and pointers. */
const watchedKindsSql = (project: string, kinds: string) =>
  `SELECT t.event FROM automation_event_triggers t WHERE t.project_id = ${project}
     AND t.event IN (SELECT value FROM json_each(${kinds}))
   UNION SELECT r.event FROM automation_remote_triggers r WHERE r.project_id = ${project}
     AND r.event IN (SELECT value FROM json_each(${kinds}))`;

/**
 * A project's cursor into the change log, made if missing while a trigger of the `kinds` watches it: just before the entries written since its first
 * automation with an event trigger was created (earlier writes fire nothing), or since `since` for a project watched
 * only by other organizations' pointers. When the cursor exists the log is not looked at: finding that entry walks
 * back over every entry written since, which every write's nudge paid for (29 ms at 200,000 entries).
 */
export function logCursorStatement(d1: D1Database, projectId: string, kinds: string, now: number, since: number) {
  return statement(
    d1,
    `INSERT INTO automation_log_cursors (project_id, cursor_seq, cursor_record_id, updated_at)
     SELECT ?1, COALESCE(x.seq, 0), COALESCE(x.record_id, ''), ?2
     FROM (SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM automation_log_cursors WHERE project_id = ?1)
       AND EXISTS (${watchedKindsSql("?1", "?4")})) LEFT JOIN (
       SELECT seq, record_id FROM change_log WHERE project_id = ?1 AND at < COALESCE(
         (SELECT min(a.created_at) FROM automation_event_triggers t JOIN automations a ON a.id = t.automation_id
           WHERE t.project_id = ?1), ?3)
       ORDER BY seq DESC, record_id DESC LIMIT 1) x ON true
     WHERE true ON CONFLICT (project_id) DO NOTHING`,
    projectId,
    now,
    since,
    kinds,
  );
}

/**
 * Whether a trigger of the `kinds` watches the project, whether it has a cursor, and whether large writes' entries
 * wait staged in its database (logTriggers.ts step).
 */
export function logWatchStatement(d1: D1Database, projectId: string, kinds: string) {
  return statement(
    d1,
    `SELECT EXISTS (${watchedKindsSql("?1", "?2")}) AS watched,
       EXISTS (SELECT 1 FROM automation_log_cursors WHERE project_id = ?1) AS cursor,
       EXISTS (SELECT 1 FROM change_log_staged) AS staged`,
    projectId,
    kinds,
  );
}

/** The cursor of a project no trigger watches any more: made again, after its next trigger's creation, on its first read. */
export function dropLogCursorStatement(d1: D1Database, projectId: string) {
  return statement(d1, `DELETE FROM automation_log_cursors WHERE project_id = ?1`, projectId);
}

/**
 * The project's next entries past its cursor of those of the `kinds` (JSON array) that a trigger watches in it (its
 * own or another organization's pointer), with what their events carry beyond the entry: a row's (or row comment's)
 * table's document; a comment's document, row and the document's parent. A project no trigger of those kinds
 * watches reads no entry, so a write's nudge there only moves the cursor to the newest (logTriggers.ts step).
 */
export function logEntriesStatement(d1: D1Database, projectId: string, kinds: string, limit: number) {
  return statement(
    d1,
    `SELECT c.seq, c.record_id, c.kind, c.table_id, c.actor, c.changes,
       (SELECT t.document_id FROM tables t WHERE t.id = c.table_id) AS document_id,
       m.document_id AS comment_document_id, m.row_id AS comment_row_id,
       (SELECT d.parent_id FROM documents d WHERE d.id = m.document_id) AS comment_parent_id
     FROM automation_log_cursors k
     JOIN change_log c ON c.project_id = k.project_id AND (c.seq, c.record_id) > (k.cursor_seq, k.cursor_record_id)
     LEFT JOIN comments m ON c.kind = 'comment.created' AND m.id = c.record_id
     WHERE k.project_id = ?1 AND c.kind IN (${watchedKindsSql("?1", "?2")})
     ORDER BY c.seq, c.record_id LIMIT ?3`,
    projectId,
    kinds,
    limit,
  );
}

/**
 * The project's newest entry of any kind past its cursor, if any (read in the same batch as its entries, so both see
 * one state).
 */
export function newestLogEntryStatement(d1: D1Database, projectId: string) {
  return statement(
    d1,
    `SELECT c.seq, c.record_id FROM automation_log_cursors k
     JOIN change_log c ON c.project_id = k.project_id AND (c.seq, c.record_id) > (k.cursor_seq, k.cursor_record_id)
     WHERE k.project_id = ?1 ORDER BY c.seq DESC, c.record_id DESC LIMIT 1`,
    projectId,
  );
}

/** The cursor moved to an entry, only forward (a tick and a nudge may both move it). */
export function moveLogCursorStatement(d1: D1Database, projectId: string, seq: number, recordId: string, now: number) {
  return statement(
    d1,
    `UPDATE automation_log_cursors SET cursor_seq = ?2, cursor_record_id = ?3, updated_at = ?4
     WHERE project_id = ?1 AND (cursor_seq, cursor_record_id) < (?2, ?3)`,
    projectId,
    seq,
    recordId,
    now,
  );
}

/** The depth and cascade of runs (the writers named by log entries' actors). */
export function runCausesStatement(d1: D1Database, runIds: readonly string[]) {
  return statement(
    d1,
    `SELECT id, depth, cascade_id FROM automation_runs WHERE id IN (SELECT value FROM json_each(?1))`,
    JSON.stringify(runIds),
  );
}

/**
 * The projects of a shard database with entries past their cursor of a kind among `kinds` that a trigger watches
 * there, least recent first.
 */
export function dueLogProjectsStatement(d1: D1Database, kinds: string, limit: number) {
  return statement(
    d1,
    `SELECT p.project_id FROM (
       SELECT project_id, event FROM automation_event_triggers WHERE event IN (SELECT value FROM json_each(?1))
       UNION SELECT project_id, event FROM automation_remote_triggers WHERE event IN (SELECT value FROM json_each(?1))) p
     LEFT JOIN automation_log_cursors k ON k.project_id = p.project_id
     WHERE EXISTS (SELECT 1 FROM change_log c WHERE c.project_id = p.project_id AND c.kind = p.event
       AND (c.seq, c.record_id) > (COALESCE(k.cursor_seq, 0), COALESCE(k.cursor_record_id, '')))
     GROUP BY p.project_id ORDER BY COALESCE(min(k.updated_at), 0) LIMIT ?2`,
    kinds,
    limit,
  );
}
