/**
 * Writing the organization's audit log (docs/api-guide.md › Changes, history and audit). Two ways in:
 * - `auditEntryQuery`: an entry as a Drizzle insert for the SAME batch as the write it records (memberships,
 *   invitations, share links, portals, automations), guarded by an SQL `exists` so a write that changes nothing, or
 *   a batch that rolls back, records nothing;
 * - `recordAuditEvent`: a security event of a request that writes nothing of its own (an export, a download, a
 *   failed portal password), written after the response (waitUntil) on an uncounted connection, so the request's
 *   round trips stay what its route declares. A token's entries follow its directory write (tokens.ts here).
 * Every entry carries the actor (with its token id) and the request's client address.
 */
import { eq, sql, type SQL } from "drizzle-orm";
import { auditLog } from "../../db/schema/audit";
import type { CellChanges, ChangeActor } from "../../db/schema/changes";
import { userOrganizations } from "../../db/schema/identity";
import { createDb } from "../../db/client";
import { d1Of } from "../../db/d1";
import { uncountedD1 } from "../../db/instrument";
import { actorOf } from "../changes/log";
import type { ServiceContext } from "../context";

export interface AuditEntry {
  kind: string;
  /** What the entry is about (a member's user id, a token's id, a document, an automation…). */
  recordId: string;
  /** The organization, or the workspace (or project) whose organization it is. */
  organizationId?: string | SQL;
  workspaceId?: string | null;
  projectId?: string | null;
  changes?: CellChanges | null;
  /** The changes as SQL (JSON text) where they are known only in the batch (a removed member's role). */
  changesSql?: SQL;
  /** Who, when not the context's actor (the deployment's admin token acts as `system`). */
  actor?: ChangeActor;
  /** SQL true where the entry sits in its batch when it is to be recorded (after an insert: it was made). */
  exists?: SQL;
}

/** The workspace of the entry: given, or its project's. */
function workspaceOf(entry: AuditEntry): SQL {
  if (entry.workspaceId || !entry.projectId) return sql`${entry.workspaceId ?? null}`;
  return sql`(SELECT workspace_id FROM projects WHERE id = ${entry.projectId})`;
}

function organizationOf(entry: AuditEntry): SQL {
  if (entry.organizationId) return sql`${entry.organizationId}`;
  if (!entry.workspaceId && !entry.projectId)
    throw new Error("An audit entry needs its organization, workspace or project");
  return sql`(SELECT organization_id FROM workspaces WHERE id = ${workspaceOf(entry)})`;
}

/** When, who and from where: a request's context gives them; work no request started names its own. */
interface Stamp {
  now: number;
  clientAddress: string | null;
  actor: ChangeActor;
}

/** The insert of `entry` on `db` (in table column order: the statement names every column). */
function insertStamped(stamp: Stamp, db: ServiceContext["db"], entry: AuditEntry) {
  const org = organizationOf(entry);
  const values = sql`SELECT ${org}, (SELECT COALESCE(MAX(seq), 0) FROM audit_log WHERE organization_id = ${org}) + 1,
    ${stamp.now}, ${entry.kind}, ${entry.recordId}, ${workspaceOf(entry)}, ${entry.projectId ?? null},
    ${JSON.stringify(entry.actor ?? stamp.actor)}, ${stamp.clientAddress}, ${entry.changesSql ?? (entry.changes ? JSON.stringify(entry.changes) : null)}
    WHERE ${org} IS NOT NULL AND ${entry.exists ?? sql`1`}`;
  return db.insert(auditLog).select(values);
}

const insertOn = (ctx: ServiceContext, db: ServiceContext["db"], entry: AuditEntry) =>
  insertStamped({ now: ctx.now, clientAddress: ctx.clientAddress, actor: actorOf(ctx) }, db, entry);

/**
 * The audit entry of a write no request made (the Worker's upkeep, a queue consumer: `actor` system, no client
 * address) at `now`, as a Drizzle insert for that write's batch on `db`.
 */
export function systemAuditEntryQuery(db: ServiceContext["db"], now: number, entry: AuditEntry) {
  return insertStamped({ now, clientAddress: null, actor: { type: "system" } }, db, entry);
}

/** The audit entry of a write, as a Drizzle insert for that write's batch (on `ctx`'s database, the organization's). */
export function auditEntryQuery(ctx: ServiceContext, entry: AuditEntry) {
  return insertOn(ctx, ctx.db, entry);
}

/**
 * A security event (`export.*`, `download.*`, `portal.login_failed`…) of the organization the record `entry` names,
 * written after the response: it neither slows the request nor adds to its round trips. A failure is logged.
 */
export function recordAuditEvent(ctx: ServiceContext, entry: AuditEntry): void {
  const key = typeof entry.organizationId === "string" ? entry.organizationId : (entry.workspaceId ?? entry.projectId);
  if (!key) return;
  const home = ctx.on(key);
  const db = createDb(uncountedD1(home.d1));
  ctx.waitUntil(
    insertOn(home, db, entry)
      .run()
      .catch((err: unknown) =>
        console.error(
          JSON.stringify({ level: "error", msg: "audit event not recorded", kind: entry.kind, error: String(err) }),
        ),
      ),
  );
}

/**
 * The changes between `before` and `after` over the fields `after` names (`{ field: { before, after } }`), or null
 * when none changed: an entry records only what changed, and nothing when nothing did.
 */
export function changedFields(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown>,
): CellChanges | null {
  const out: CellChanges = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before ? (before[field] ?? null) : null;
    if (JSON.stringify(old) !== JSON.stringify(value ?? null)) out[field] = { before: old, after: value ?? null };
  }
  return Object.keys(out).length ? out : null;
}

/**
 * A token's entry (`token.created`, `token.revoked`) in the audit log of each organization it reaches: those its
 * resources name, or, without resources, every organization of its user (the directory's index of memberships).
 * Tokens live in the directory, which shares no batch with a shard, so the entries follow the token's write, after
 * the response (waitUntil, uncounted).
 */
export function recordTokenEvent(
  ctx: ServiceContext,
  token: { kind: "token.created" | "token.revoked"; tokenId: string; changes: CellChanges | null },
  reaches: { resourceIds: readonly string[] } | { userId: string },
): void {
  const dir = createDb(uncountedD1(d1Of(ctx.dir)));
  const reached = async () => {
    if ("resourceIds" in reaches) return [...reaches.resourceIds];
    const rows = await dir
      .select({ id: userOrganizations.organizationId })
      .from(userOrganizations)
      .where(eq(userOrganizations.userId, reaches.userId));
    return rows.map((r) => r.id);
  };
  const write = (id: string) => {
    // An organization, workspace or project id: its organization, once however many of its records the token names.
    const org = sql`COALESCE((SELECT id FROM organizations WHERE id = ${id}),
      (SELECT organization_id FROM workspaces WHERE id = ${id}),
      (SELECT w.organization_id FROM projects p JOIN workspaces w ON w.id = p.workspace_id WHERE p.id = ${id}))`;
    const once = sql`NOT EXISTS (SELECT 1 FROM audit_log a WHERE a.organization_id = ${org} AND a.at = ${ctx.now}
      AND a.kind = ${token.kind} AND a.record_id = ${token.tokenId})`;
    const entry = {
      kind: token.kind,
      recordId: token.tokenId,
      changes: token.changes,
      organizationId: org,
      exists: once,
    };
    return insertOn(ctx, createDb(uncountedD1(ctx.on(id).d1)), entry).run();
  };
  // One after another: two resources of one organization must see each other's entry.
  const writing = reached().then(async (ids) => {
    for (const id of ids) await write(id);
  });
  ctx.waitUntil(
    writing.catch((err: unknown) =>
      console.error(JSON.stringify({ level: "error", msg: "token audit not recorded", error: String(err) })),
    ),
  );
}

/** An `export.*` or `download.*` of the record `of` (a table, a document, a file), after the response. */
export function recordReadEvent(
  ctx: ServiceContext,
  kind: `export.${string}` | `download.${string}`,
  of: { id: string; workspaceId: string; projectId?: string | null },
): void {
  recordAuditEvent(ctx, { kind, recordId: of.id, workspaceId: of.workspaceId, projectId: of.projectId ?? null });
}
