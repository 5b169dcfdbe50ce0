/**
 * Reading the change log (docs/api-guide.md › Changes, history and audit): the change feed of a table, project or
 * workspace, and a row's history. Each is one D1 round trip with authentication and access, whose first statement
 * folds what large writes staged (./staged.ts), so no entry is read past one still staged.
 */
import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import { changeLog } from "../../db/schema";
import { ApiError, notFound, validation } from "../../errors";
import {
  checkProjectAccess,
  checkWorkspaceAccess,
  projectAccessStatement,
  workspaceAccessStatement,
} from "../../auth/access";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { assembleDocumentsAccess, checkDocumentAccess, documentsAccessStatements } from "../../auth/access";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { read, type ServiceContext } from "../context";
import { tableOfRow } from "../tables/rowReads";
import { foldQuery } from "./staged";

const DAY_MS = 86_400_000;

type EntryRow = typeof changeLog.$inferSelect;

/** Days the change log keeps its entries (`CHANGE_RETENTION_DAYS`, default 30). */
export function retentionDays(env: { CHANGE_RETENTION_DAYS?: string }): number {
  const days = Number(env.CHANGE_RETENTION_DAYS ?? "30");
  return Number.isFinite(days) && days > 0 ? days : 30;
}

/** A cursor: the last entry seen `(seq, recordId)` and when it was handed out (retention is counted from then). */
export interface Cursor {
  seq: number;
  recordId: string;
  at: number;
}

export function encodeCursor(c: Cursor): string {
  return textToBase64Url(`${c.seq}.${c.recordId}.${c.at}`);
}

export function decodeCursor(text: string): Cursor {
  // seq -1: the start of a scope with no entries yet (what `latest` hands out on an empty feed).
  const m = /^(-1|\d{1,15})\.([0-9A-Za-z_-]{0,64})\.(\d{1,15})$/.exec(textFromBase64Url(text) ?? "");
  if (!m)
    throw validation("cursor is not a cursor this feed returned", [{ path: "cursor", message: "invalid cursor" }]);
  return { seq: Number(m[1]), recordId: m[2]!, at: Number(m[3]) };
}

export function entryDto(row: EntryRow, now: number) {
  return {
    cursor: encodeCursor({ seq: row.seq, recordId: row.recordId, at: now }),
    at: row.at,
    kind: row.kind,
    organizationId: row.organizationId,
    workspaceId: row.workspaceId,
    projectId: row.projectId,
    ...(row.tableId ? { tableId: row.tableId } : {}),
    recordId: row.recordId,
    actor: row.actor,
    source: row.source,
    ...(row.changes ? { changes: row.changes } : {}),
  };
}

export interface FeedInput {
  projectId?: string;
  tableId?: string;
  workspaceId?: string;
  cursor?: string;
  limit: number;
}

/** The scope's column and id, and the access statement and rule of that scope. */
function scopeOf(caller: ServiceContext, input: FeedInput) {
  const given = (["tableId", "projectId", "workspaceId"] as const).filter((k) => input[k] !== undefined);
  if (given.length !== 1)
    throw validation("Give exactly one of tableId, projectId and workspaceId", [
      { path: given[1] ?? "projectId", message: "exactly one scope" },
    ]);
  const key = given[0]!;
  const id = input[key]!;
  const ctx = caller.on(id);
  if (key === "tableId")
    return {
      ctx,
      where: eq(changeLog.tableId, id),
      access: tableAccessStatement(ctx.db, ctx.user.ref, id),
      check: (rows: unknown[]) => void checkTableAccess(rows[0] as never, "read"),
    };
  if (key === "projectId")
    return {
      ctx,
      where: eq(changeLog.projectId, id),
      access: projectAccessStatement(ctx.db, ctx.user.ref, id),
      check: (rows: unknown[]) => {
        // Readable through a document grant alone: the project's other records are not the caller's to follow.
        if (checkProjectAccess(rows[0] as never, "read").workspaceRole === null) throw notFound("Project");
      },
    };
  return {
    ctx,
    where: eq(changeLog.workspaceId, id),
    access: workspaceAccessStatement(ctx.db, ctx.user.ref, id),
    check: (rows: unknown[]) => void checkWorkspaceAccess(rows[0] as never, "read"),
  };
}

/**
 * GET /changes: the scope's entries after `cursor` in commit order (`(seq, recordId)`), `limit` of them, with the
 * cursor to continue from. Without a cursor, from the oldest kept entry; `latest`, from the end. A cursor handed
 * out longer ago than retention is 410 with the oldest cursor still kept.
 */
export async function listChanges(caller: ServiceContext, input: FeedInput) {
  const scope = scopeOf(caller, input);
  const ctx = scope.ctx;
  const latest = input.cursor === "latest";
  const after = input.cursor && !latest ? decodeCursor(input.cursor) : { seq: -1, recordId: "", at: ctx.now };
  const keyset: SQL = sql`(${changeLog.seq}, ${changeLog.recordId}) > (${after.seq}, ${after.recordId})`;
  const [, accessRows, entries, [last], [oldest]] = await read(ctx, [
    foldQuery(ctx.db),
    scope.access,
    ctx.db
      .select()
      .from(changeLog)
      .where(and(scope.where, keyset))
      .orderBy(asc(changeLog.seq), asc(changeLog.recordId))
      .limit(latest ? 0 : input.limit),
    ctx.db
      .select({ seq: changeLog.seq, recordId: changeLog.recordId })
      .from(changeLog)
      .where(scope.where)
      .orderBy(desc(changeLog.seq), desc(changeLog.recordId))
      .limit(1),
    ctx.db
      .select({ seq: changeLog.seq })
      .from(changeLog)
      .where(scope.where)
      .orderBy(asc(changeLog.seq), asc(changeLog.recordId))
      .limit(1),
  ]);
  scope.check(accessRows);
  if (after.at < ctx.now - retentionDays(ctx.env) * DAY_MS) {
    const oldestCursor = encodeCursor({ seq: oldest ? oldest.seq - 1 : 0, recordId: "", at: ctx.now });
    throw new ApiError("GoneError", "The cursor is older than the change log keeps", {
      details: [{ path: "cursor", message: "past retention", oldestCursor }],
    });
  }
  const end = latest ? last : entries.at(-1);
  const next = end ? { seq: end.seq, recordId: end.recordId } : after;
  return {
    data: entries.map((e) => entryDto(e, ctx.now)),
    nextCursor: encodeCursor({ ...next, at: ctx.now }),
  };
}

/**
 * GET /table/row/{rowId}/history: the row's entries, newest first, to whoever can read its table (a deleted row's
 * too: its table names it).
 */
export async function rowHistory(ctx: ServiceContext, input: { rowId: string; cursor?: string; limit: number }) {
  const before = input.cursor ? decodeCursor(input.cursor) : null;
  const [, [tableRow], entries] = await read(ctx, [
    foldQuery(ctx.db),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfRow(input.rowId)),
    ctx.db
      .select()
      .from(changeLog)
      .where(and(eq(changeLog.recordId, input.rowId), before ? sql`${changeLog.seq} < ${before.seq}` : undefined))
      .orderBy(desc(changeLog.seq))
      .limit(input.limit + 1),
  ]);
  checkTableAccess(tableRow, "read", { as: "Row" });
  const page = entries.slice(0, input.limit);
  return {
    data: page.map((e) => entryDto(e, ctx.now)),
    nextCursor: entries.length > input.limit ? encodeCursor({ ...page.at(-1)!, at: ctx.now }) : null,
  };
}

/**
 * GET /document/{documentId}/history: the document's entries (metadata, moves, deletes and restores, content
 * versions), newest first, to whoever can read the document; a deleted document's too, while it can be read.
 */
export async function documentHistory(
  ctx: ServiceContext,
  input: { documentId: string; cursor?: string; limit: number },
) {
  const before = input.cursor ? decodeCursor(input.cursor) : null;
  const [, docs, wsRoles, docRoles, entries] = await read(ctx, [
    foldQuery(ctx.db),
    ...documentsAccessStatements(ctx.db, ctx.user.ref, [input.documentId]),
    ctx.db
      .select()
      .from(changeLog)
      .where(and(eq(changeLog.recordId, input.documentId), before ? sql`${changeLog.seq} < ${before.seq}` : undefined))
      .orderBy(desc(changeLog.seq))
      .limit(input.limit + 1),
  ]);
  const access = assembleDocumentsAccess([docs, wsRoles, docRoles]).get(input.documentId);
  checkDocumentAccess(access, "read", { includeDeleted: true });
  const page = entries.slice(0, input.limit);
  return {
    data: page.map((e) => entryDto(e, ctx.now)),
    nextCursor: entries.length > input.limit ? encodeCursor({ ...page.at(-1)!, at: ctx.now }) : null,
  };
}
