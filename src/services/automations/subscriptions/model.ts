/**
 * Webhook subscriptions' records as the API shows them, who may read and change one, and which change-log entries
 * a subscription takes (docs/api-guide.md › Webhook subscriptions).
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../env";
import { changeLog, webhookSubscriptionDeliveries, webhookSubscriptions } from "../../../db/schema";
import type { UserRef } from "../../../auth/access";
import { outsideResources } from "../../../auth/tokenLimits";
import { forbidden, notFound } from "../../../errors";
import { etagOf } from "../../../lib/etag";
import { encodeCursor } from "../../changes/feed";
import type { Principal } from "../../principal";
import { webhookUrlForReader } from "../serialize";

export type SubscriptionRow = typeof webhookSubscriptions.$inferSelect;
export type SubscriptionDeliveryRow = typeof webhookSubscriptionDeliveries.$inferSelect;
type EntryRow = typeof changeLog.$inferSelect;

/** Entries per delivery, and entries a batch looks through to fill one (the filters may skip many). */
export const ENTRIES_PER_DELIVERY = 100;
export const ENTRIES_SCANNED = 1000;
/** Failed deliveries in a row that disable a subscription (its owner is told). */
export const FAILURES_TO_DISABLE = 20;

/** The caller's workspace role in the subscription's workspace, beside the subscription (one batchable statement). */
export function subscriptionAccessQuery(db: Db, user: UserRef, id: string | SQL) {
  return db
    .select({ sub: webhookSubscriptions, callerRole: callerRoleOf(user) })
    .from(webhookSubscriptions)
    .where(and(eq(webhookSubscriptions.id, id), eq(webhookSubscriptions.isDeleted, false)));
}

/** The user's role in the workspace of the subscription row being selected. */
export function callerRoleOf(user: UserRef) {
  return sql<
    string | null
  >`(SELECT wc.role FROM workspace_collaborators wc WHERE wc.workspace_id = "webhook_subscriptions"."workspace_id" AND wc.user_id = ${user})`;
}

type AccessRow = { sub: SubscriptionRow; callerRole: string | null } | undefined;

/**
 * Readable by whoever has a role in its workspace (others: 404, as if it did not exist); changed by its owner and
 * the workspace's owners and admins (others: 403).
 */
export function checkSubscriptionAccess(user: Principal, row: AccessRow, level: "read" | "change", as = "Webhook") {
  if (!row || row.callerRole === null || outsideResources(row.sub)) throw notFound(as);
  const canChange = row.sub.ownerId === user._id || row.callerRole === "owner" || row.callerRole === "admin";
  if (level === "change" && !canChange) throw forbidden("Only its owner or a workspace admin may change a webhook");
  return { sub: row.sub, canChange };
}

export const subscriptionCursor = (s: { cursorSeq: number; cursorRecordId: string }, now: number) =>
  encodeCursor({ seq: s.cursorSeq, recordId: s.cursorRecordId, at: now });

export function subscriptionDto(s: SubscriptionRow, now: number, opts: { canChange: boolean }) {
  return {
    _id: s.id,
    scope: s.tableId ? { tableId: s.tableId } : { projectId: s.projectId },
    projectId: s.projectId,
    workspaceId: s.workspaceId,
    tableId: s.tableId,
    ownerId: s.ownerId,
    events: s.events,
    columnIds: s.columnIds,
    url: opts.canChange ? s.url : webhookUrlForReader(s.url),
    description: s.description,
    status: s.status,
    disabledReason: s.disabledReason,
    consecutiveFailures: s.consecutiveFailures,
    cursor: subscriptionCursor(s, now),
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
  };
}

/**
 * The representation a subscription's ETag covers (docs/api-guide.md › HTTP semantics): GET /webhook/{id}'s body
 * with its cursor as issued at time 0. The cursor carries the time it was handed out (for the 410 of retention),
 * which is not the subscription's state: two reads of an unchanged subscription share their tag, and any change of
 * a member — the cursor's position included — gives another. `canChange` as the caller's GET shows it.
 */
export function subscriptionRepresentation(s: SubscriptionRow, opts: { canChange: boolean }) {
  return { data: subscriptionDto(s, 0, opts) };
}

export const subscriptionEtag = (s: SubscriptionRow, opts: { canChange: boolean }) =>
  etagOf(subscriptionRepresentation(s, opts));

export function subscriptionDeliveryDto(d: SubscriptionDeliveryRow, now: number) {
  return {
    _id: d.id,
    subscriptionId: d.subscriptionId,
    status: d.status,
    entryCount: d.entryCount,
    cursor: encodeCursor({ seq: d.toSeq, recordId: d.toRecordId, at: now }),
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

/** `row.*` takes every row kind, `*` everything, anything else its own kind. */
export function kindMatches(patterns: readonly string[], kind: string): boolean {
  return patterns.some((p) => p === "*" || p === kind || (p.endsWith(".*") && kind.startsWith(p.slice(0, -1))));
}

/** Whether the subscription delivers this entry: its kind, and for a row.updated, a change to one of `columnIds`. */
export function takesEntry(s: Pick<SubscriptionRow, "events" | "columnIds">, e: EntryRow): boolean {
  if (!kindMatches(s.events, e.kind)) return false;
  if (e.kind !== "row.updated" || !s.columnIds?.length) return true;
  const changed = Object.keys(e.changes ?? {});
  return s.columnIds.some((c) => changed.includes(c));
}
