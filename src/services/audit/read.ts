/**
 * Reading the organization's audit log (docs/api-guide.md › Changes, history and audit): its own entries (audit_log)
 * and the organization's change-log entries, merged newest first, to the organization's owners and admins only
 * (anyone else: 404, as if it did not exist). A page is one D1 round trip with authentication and access; the
 * export streams the same entries page by page, so its memory stays one page whatever the log holds.
 */
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import { changeLog } from "../../db/schema/changes";
import { checkOrganizationAccess, organizationAccessStatement } from "../../auth/organizationAccess";
import { notFound, validation } from "../../errors";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { read, type ServiceContext } from "../context";
import { foldQuery } from "../changes/staged";

export interface AuditQuery {
  organizationId: string;
  actor?: string;
  kind?: string;
  from?: number;
  to?: number;
  cursor?: string;
  limit: number;
}

/** Where a page starts: after the entry `(at, stream, seq, recordId)` in newest-first order (stream 1: audit_log). */
interface Position {
  at: number;
  stream: 0 | 1;
  seq: number;
  recordId: string;
}

const encode = (p: Position) => textToBase64Url(`${p.at}.${p.stream}.${p.seq}.${p.recordId}`);

function decode(text: string): Position {
  const m = /^(\d{1,15})\.([01])\.(\d{1,15})\.([0-9A-Za-z_-]{0,64})$/.exec(textFromBase64Url(text) ?? "");
  if (!m) throw validation("cursor is not a cursor this log returned", [{ path: "cursor", message: "invalid cursor" }]);
  return { at: Number(m[1]), stream: Number(m[2]) as 0 | 1, seq: Number(m[3]), recordId: m[4]! };
}

type Table = typeof auditLog | typeof changeLog;

/** The filters and the page's start on `t`, one of the two logs. */
function where(t: Table, stream: 0 | 1, q: AuditQuery, after: Position | null): SQL | undefined {
  const kind = q.kind?.endsWith(".*")
    ? sql`${t.kind} LIKE ${`${q.kind.slice(0, -1).replace(/[%_\\]/g, "\\$&")}%`} ESCAPE '\\'`
    : q.kind
      ? eq(t.kind, q.kind)
      : undefined;
  const record = stream ? sql`''` : sql`${changeLog.recordId}`;
  return and(
    eq(t.organizationId, q.organizationId),
    q.actor ? sql`json_extract(${t.actor}, '$.userId') = ${q.actor}` : undefined,
    kind,
    q.from !== undefined ? gte(t.at, q.from) : undefined,
    q.to !== undefined ? lt(t.at, q.to) : undefined,
    after
      ? sql`(${t.at}, ${stream}, ${t.seq}, ${record}) < (${after.at}, ${after.stream}, ${after.seq}, ${after.recordId})`
      : undefined,
  );
}

/** Kinds only the audit log holds: a filter on one of them leaves the change log unread (no scan of it). */
const AUDIT_ONLY = /^(member|share|portal|automation|webhook|token|export|download|admin)\./;

function pageStatements(ctx: ServiceContext, q: AuditQuery, after: Position | null) {
  const changeLogToo = !q.kind || !AUDIT_ONLY.test(q.kind);
  return [
    ctx.db
      .select()
      .from(auditLog)
      .where(where(auditLog, 1, q, after))
      .orderBy(desc(auditLog.at), desc(auditLog.seq))
      .limit(q.limit + 1),
    ctx.db
      .select()
      .from(changeLog)
      .where(changeLogToo ? where(changeLog, 0, q, after) : sql`0`)
      .orderBy(desc(changeLog.at), desc(changeLog.seq), desc(changeLog.recordId))
      .limit(q.limit + 1),
  ] as const;
}

type AuditRow = typeof auditLog.$inferSelect;
type ChangeRow = typeof changeLog.$inferSelect;

/** An entry as the audit log answers it: the change-log entry's members, with `clientAddress` for its own. */
function entryOf(row: AuditRow | ChangeRow, stream: 0 | 1) {
  const position: Position = { at: row.at, stream, seq: row.seq, recordId: stream ? "" : row.recordId };
  return {
    position,
    dto: {
      cursor: encode(position),
      at: row.at,
      kind: row.kind,
      organizationId: row.organizationId,
      workspaceId: row.workspaceId ?? null,
      projectId: row.projectId ?? null,
      ...("tableId" in row && row.tableId ? { tableId: row.tableId } : {}),
      recordId: row.recordId,
      actor: row.actor,
      ...("source" in row ? { source: row.source } : {}),
      clientAddress: "clientAddress" in row ? row.clientAddress : null,
      ...(row.changes ? { changes: row.changes } : {}),
    },
  };
}

const newestFirst = (a: Position, b: Position) =>
  b.at - a.at ||
  b.stream - a.stream ||
  b.seq - a.seq ||
  (a.recordId < b.recordId ? 1 : a.recordId > b.recordId ? -1 : 0);

/** The two logs' rows merged newest first: a page of `limit`, and whether more follow. */
function merge(q: AuditQuery, own: AuditRow[], changes: ChangeRow[]) {
  const all = [...own.map((r) => entryOf(r, 1)), ...changes.map((r) => entryOf(r, 0))].sort((a, b) =>
    newestFirst(a.position, b.position),
  );
  const page = all.slice(0, q.limit);
  const more = all.length > q.limit;
  return { data: page.map((e) => e.dto), nextCursor: more ? encode(page.at(-1)!.position) : null };
}

function checkAuditor(row: Parameters<typeof checkOrganizationAccess>[0]) {
  // Members who are not owners or admins see no audit log: as if it did not exist.
  if (checkOrganizationAccess(row, "read").callerRole === "member") throw notFound("Organization");
}

/** GET /organization/{organizationId}/audit: a page of entries, newest first, with the cursor of the next page. */
export async function listAuditLog(caller: ServiceContext, q: AuditQuery) {
  const ctx = caller.on(q.organizationId);
  const after = q.cursor ? decode(q.cursor) : null;
  const [, orgRows, own, changes] = await read(ctx, [
    foldQuery(ctx.db),
    organizationAccessStatement(ctx.db, ctx.user.ref, q.organizationId),
    ...pageStatements(ctx, q, after),
  ]);
  checkAuditor(orgRows[0]);
  return merge(q, own, changes);
}

const EXPORT_PAGE = 500;

/**
 * GET /organization/{organizationId}/audit/export: the entries the filters select, newest first, as JSON Lines. The
 * access check and the first page are read before the answer starts (a refusal is an ordinary error); the rest is
 * read a page at a time as the client takes it.
 */
export async function exportAuditLog(caller: ServiceContext, input: Omit<AuditQuery, "cursor" | "limit">) {
  const ctx = caller.on(input.organizationId);
  const q: AuditQuery = { ...input, limit: EXPORT_PAGE };
  const [, orgRows, own, changes] = await read(ctx, [
    foldQuery(ctx.db),
    organizationAccessStatement(ctx.db, ctx.user.ref, q.organizationId),
    ...pageStatements(ctx, q, null),
  ]);
  checkAuditor(orgRows[0]);
  let page = merge(q, own, changes);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      controller.enqueue(encoder.encode(page.data.map((e) => `${JSON.stringify(e)}\n`).join("")));
      if (!page.nextCursor) return controller.close();
      const [nextOwn, nextChanges] = await ctx.db.batch(pageStatements(ctx, q, decode(page.nextCursor)));
      page = merge(q, nextOwn, nextChanges);
    },
  });
}
