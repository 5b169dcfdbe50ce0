/**
 * The change log's entries of records other than rows (docs/api-guide.md › Changes, history and audit): documents,
 * tables and columns. Like ./log.ts, every builder here returns statements for the SAME D1 batch as the write they
 * record, guarded in SQL by the write's own conditions, so a write that does not land records nothing and a write
 * that changes nothing records nothing (the stored values are compared with the new ones where the entry sits in
 * the batch: before the update).
 */
import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { statement } from "../../db/d1";
import { changeLog, type ChangeActor, type ChangeSource } from "../../db/schema/changes";
import type { ServiceContext } from "../context";
import { actorOf, changeLogOff, defaultSource } from "./log";
import { NEXT_SEQ as NEXT_SEQ_TEXT } from "./staged";

/** Where an entry belongs: its workspace, project and (for a table or column) table. */
export interface EntryPlace {
  workspaceId: string;
  projectId: string;
  tableId?: string | null;
}

/** Who made the change and through what; by default the context's caller and source. */
export interface EntryBy {
  actor: ChangeActor;
  source: ChangeSource;
}

export const entryBy = (ctx: ServiceContext, source?: ChangeSource): EntryBy => ({
  actor: actorOf(ctx),
  source: source ?? defaultSource(ctx),
});

/** A field a write sets: its name in the entry, its column, the new value (`json`: a JSON column, compared as text). */
export interface FieldWrite {
  field: string;
  /** The stored value: a column, or an expression over `table` (a value absent from a joined table, say). */
  column: SQLiteColumn | SQL;
  after: unknown;
  json?: boolean;
}

const NEXT_SEQ = sql.raw(NEXT_SEQ_TEXT);
const organizationOf = (workspaceId: string | SQL) =>
  sql`(SELECT organization_id FROM workspaces WHERE id = ${workspaceId})`;

/** `{ field: { before, after } }` of the fields whose stored value differs from the new one (`{}` when none does). */
function diffJson(fields: readonly FieldWrite[]): SQL {
  const members = fields.map((f) => {
    const after = f.json ? (f.after === null || f.after === undefined ? null : JSON.stringify(f.after)) : f.after;
    const before = f.json ? sql`json(${f.column})` : sql`${f.column}`;
    const next = f.json ? sql`json(${after})` : sql`${after}`;
    return sql`json_array(${f.field}, json(CASE WHEN ${f.column} IS NOT ${after} THEN json_object('before', ${before}, 'after', ${next}) END))`;
  });
  // `[field, change | null]` pairs; the fields that did not change (null) are left out.
  return sql`(SELECT json_group_object(j.value ->> 0, j.value -> 1) FROM json_each(json_array(${sql.join(members, sql`, `)})) j
    WHERE j.value ->> 1 IS NOT NULL)`;
}

/**
 * Before an UPDATE of one record of `table`: an entry `kind` with `{ before, after }` of each field of `fields`
 * whose stored value differs from the new one, recorded only when one does and `guard` (the update's own WHERE,
 * naming the record) holds.
 */
export function diffEntryQuery(
  ctx: ServiceContext,
  e: {
    kind: string;
    recordId: string;
    place: EntryPlace;
    /** What the fields are read from: the record's table, or a join (SQL). */
    table: SQLiteTable | SQL;
    guard: SQL;
    fields: readonly FieldWrite[];
    by?: EntryBy;
  },
) {
  if (changeLogOff(ctx.env) || e.fields.length === 0) return [];
  const by = e.by ?? entryBy(ctx);
  const values = sql`SELECT ${NEXT_SEQ} + 1, ${e.recordId}, ${ctx.now}, ${e.kind}, ${organizationOf(e.place.workspaceId)},
    ${e.place.workspaceId}, ${e.place.projectId}, ${e.place.tableId ?? null}, ${JSON.stringify(by.actor)}, ${by.source}, x.changes
    FROM (SELECT ${diffJson(e.fields)} AS changes FROM ${e.table} WHERE ${e.guard}) x WHERE x.changes <> '{}'`;
  return [ctx.db.insert(changeLog).select(values)];
}

/**
 * Before an UPDATE of many documents' state (a subtree's delete or restore): a tombstone `kind` for each document
 * `where` selects (the update's own WHERE over `documents`), numbered in id order.
 */
export function documentStateEntriesQuery(ctx: ServiceContext, e: { kind: string; where: SQL; by?: EntryBy }) {
  if (changeLogOff(ctx.env)) return [];
  const by = e.by ?? entryBy(ctx);
  const values = sql`SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY d.id), d.id, ${ctx.now}, ${e.kind},
    ${organizationOf(sql`d.workspace_id`)}, d.workspace_id, d.project_id, NULL, ${JSON.stringify(by.actor)}, ${by.source}, NULL
    FROM (SELECT id, workspace_id, project_id FROM documents WHERE ${e.where}) d`;
  return [ctx.db.insert(changeLog).select(values)];
}

/**
 * After a content version is stored (the bump of document_contents, in the same batch): `document.content` with
 * the version it replaced and the new one with its size in bytes (`{ content: { before: { version } | null, after:
 * { version, size } } }`; the blocks stay in R2, not in the log). Recorded only if the bump stored `key` (a stale
 * `baseVersion` stores nothing).
 */
export function contentEntryQuery(ctx: ServiceContext, e: { documentId: string; key: string; by?: EntryBy }) {
  if (changeLogOff(ctx.env)) return [];
  const by = e.by ?? entryBy(ctx);
  const values = sql`SELECT ${NEXT_SEQ} + 1, d.id, ${ctx.now}, 'document.content', ${organizationOf(sql`d.workspace_id`)},
    d.workspace_id, d.project_id, NULL, ${JSON.stringify(by.actor)}, ${by.source},
    json_object('content', json_object(
      'before', json(CASE WHEN c.version > 1 THEN json_object('version', c.version - 1) END),
      'after', json_object('version', c.version, 'size', c.size)))
    FROM document_contents c JOIN documents d ON d.id = c.document_id
    WHERE c.document_id = ${e.documentId} AND c.r2_key = ${e.key}`;
  return [ctx.db.insert(changeLog).select(values)];
}

/**
 * After a DOCX version is recorded (its docx_versions insert, in the same batch): `document.content` with the
 * version it follows and the new one with its size and SHA-256 (`{ docx: { before: { version } | null, after:
 * { version, size, sha256 } } }`). Recorded only if the insert stored `r2Key` at this request's time.
 */
export function docxEntryQuery(ctx: ServiceContext, e: { documentId: string; r2Key: string; by?: EntryBy }) {
  if (changeLogOff(ctx.env)) return [];
  const by = e.by ?? entryBy(ctx);
  const values = sql`SELECT ${NEXT_SEQ} + 1, d.id, ${ctx.now}, 'document.content', ${organizationOf(sql`d.workspace_id`)},
    d.workspace_id, d.project_id, NULL, ${JSON.stringify(by.actor)}, ${by.source},
    json_object('docx', json_object(
      'before', json(CASE WHEN v.version > 1 THEN json_object('version', v.version - 1) END),
      'after', json_object('version', v.version, 'size', v.size, 'sha256', v.sha256)))
    FROM (SELECT document_id, version, size, sha256 FROM docx_versions
      WHERE document_id = ${e.documentId} AND r2_key = ${e.r2Key} AND created_at = ${ctx.now}
      ORDER BY version DESC LIMIT 1) v
    JOIN documents d ON d.id = v.document_id`;
  return [ctx.db.insert(changeLog).select(values)];
}

/** Drizzle queries as raw D1 statements, for the services that batch on the D1 binding itself. */
export function asStatements(d1: D1Database, queries: readonly { toSQL(): { sql: string; params: unknown[] } }[]) {
  return queries.map((q) => {
    const { sql: text, params } = q.toSQL();
    return statement(d1, text, ...params);
  });
}
