/**
 * The audit entries of webhook subscriptions (docs/api-guide.md › Changes, history and audit), each an insert for
 * the batch of the write it records, guarded so a write that does not happen records nothing: `webhook.created`,
 * `webhook.updated` (the members a PATCH named that changed), `webhook.deleted`, `webhook.secret_rotated`,
 * `webhook.replayed` (the cursor before and after), `webhook.redelivered` (about the delivery) and, with the system
 * as actor, `webhook.disabled` after the run of failed deliveries. Neither the secret nor a delivery's body is copied
 * into the log.
 */
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "../../../env";
import type { CellChanges } from "../../../db/schema/changes";
import { auditEntryQuery, changedFields, systemAuditEntryQuery } from "../../audit/log";
import type { ServiceContext } from "../../context";
import type { SubscriptionRow } from "./model";

const about = (s: SubscriptionRow) => ({ recordId: s.id, workspaceId: s.workspaceId, projectId: s.projectId });
const live = (id: string) =>
  sql`EXISTS (SELECT 1 FROM webhook_subscriptions w WHERE w.id = ${id} AND w.is_deleted = 0)`;
/** A write's condition on the subscription (drizzle's columns of webhook_subscriptions), as the entry's guard. */
const whileHolds = (holds: SQL) => sql`EXISTS (SELECT 1 FROM webhook_subscriptions WHERE ${holds})`;
const MEMBERS = ["events", "columnIds", "url", "description", "status"] as const;
const scopeOf = (s: SubscriptionRow) => (s.tableId ? { tableId: s.tableId } : { projectId: s.projectId });

/** After the insert: recorded when the batch made the subscription. */
export function subscriptionCreatedAudit(ctx: ServiceContext, row: SubscriptionRow) {
  const values = { scope: scopeOf(row), ...Object.fromEntries(MEMBERS.map((m) => [m, row[m] ?? null])) };
  return auditEntryQuery(ctx, {
    kind: "webhook.created",
    ...about(row),
    changes: changedFields(null, values),
    exists: sql`EXISTS (SELECT 1 FROM webhook_subscriptions w WHERE w.id = ${row.id} AND w.created_at = ${ctx.now})`,
  });
}

/**
 * Before the update (`holds`: its condition, so the entry is recorded exactly when the update is made): the members
 * the PATCH named that change; nothing when none do.
 */
export function subscriptionUpdatedAudit(
  ctx: ServiceContext,
  current: SubscriptionRow,
  set: Partial<SubscriptionRow>,
  holds: SQL,
) {
  const named = MEMBERS.filter((m) => set[m] !== undefined);
  const pick = (r: Partial<SubscriptionRow>) => Object.fromEntries(named.map((m) => [m, r[m] ?? null]));
  const changes = changedFields(pick(current), pick(set));
  if (!changes) return [];
  return [auditEntryQuery(ctx, { kind: "webhook.updated", ...about(current), changes, exists: whileHolds(holds) })];
}

/** Before the update that deletes it (`holds`: that update's condition). */
export function subscriptionDeletedAudit(ctx: ServiceContext, current: SubscriptionRow, holds: SQL) {
  return auditEntryQuery(ctx, {
    kind: "webhook.deleted",
    ...about(current),
    changes: { isDeleted: { before: false, after: true } },
    exists: whileHolds(holds),
  });
}

/** Before the update that seals the new secret: recorded while the subscription is live. */
export function subscriptionSecretRotatedAudit(ctx: ServiceContext, current: SubscriptionRow) {
  return auditEntryQuery(ctx, { kind: "webhook.secret_rotated", ...about(current), exists: live(current.id) });
}

/** Before the update that moves the cursor: `cursor` as GET /webhook/{id} shows it, before and after. */
export function subscriptionReplayedAudit(ctx: ServiceContext, current: SubscriptionRow, cursor: CellChanges[string]) {
  return auditEntryQuery(ctx, {
    kind: "webhook.replayed",
    ...about(current),
    changes: { cursor },
    exists: live(current.id),
  });
}

/** After the claim of a redelivery (`claimed`: SQL true when this request's claim took), about the delivery. */
export function deliveryRedeliveredAudit(
  ctx: ServiceContext,
  sub: SubscriptionRow,
  delivery: { id: string; status: string },
  claimed: SQL,
) {
  return auditEntryQuery(ctx, {
    kind: "webhook.redelivered",
    ...about(sub),
    recordId: delivery.id,
    changes: { status: { before: delivery.status, after: "pending" } },
    exists: claimed,
  });
}

/**
 * Before the update that counts the failure that disables it (`disables`: SQL true when it does), at `now`, by the
 * system: no request made it.
 */
export function subscriptionDisabledAudit(db: Db, now: number, sub: SubscriptionRow, reason: string, disables: SQL) {
  return systemAuditEntryQuery(db, now, {
    kind: "webhook.disabled",
    ...about(sub),
    changes: { status: { before: "active", after: "disabled" }, disabledReason: { before: null, after: reason } },
    exists: sql`${disables} AND EXISTS (SELECT 1 FROM webhook_subscriptions w WHERE w.id = ${sub.id} AND w.status = 'active')`,
  });
}
