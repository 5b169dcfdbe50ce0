/**
 * Webhook subscription deliveries (docs/api-guide.md › Webhook subscriptions): one attempt each, sent by the
 * automation Queue's consumer like an automation's delivery (../webhooks.ts sendSignedWebhook: Standard Webhooks
 * headers, the send-time URL rule, the retry schedule). A delivered batch moves its subscription's cursor to the
 * batch's last entry and prepares the next; a failed one leaves the cursor where it is (the same entries go out
 * again in a new delivery at the next tick) and counts one failure; FAILURES_TO_DISABLE in a row disable the
 * subscription, and its owner is told through the notification outbox in the batch that disables it.
 */
import { and, eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Env } from "../../../env";
import { createDb } from "../../../db/client";
import { webhookSubscriptionDeliveries, webhookSubscriptions, type DeliveryAttempt } from "../../../db/schema";
import { newId } from "../../../lib/ids";
import { deliverAtOnce, noticeId, outboxNotices } from "../../notifications/outbox";
import { d1Holding } from "../../context";
import { CLAIM_MS, claimCondition, nextStep, sendSignedWebhook, type DeliveryOutcome } from "../webhooks";
import { FAILURES_TO_DISABLE, type SubscriptionDeliveryRow, type SubscriptionRow } from "./model";
import { prepareBatch } from "./pump";
import { subscriptionDisabledAudit } from "./audit";

const d = webhookSubscriptionDeliveries;
const s = webhookSubscriptions;

/**
 * The delivery's outcome recorded, where this attempt's claim still holds, with what it does to the subscription:
 * delivered (the cursor moves, failures reset) or failed for good (one failure more; at FAILURES_TO_DISABLE the
 * subscription is disabled and its owner told). Only the subscription's pending delivery moves or counts.
 */
async function recordOutcome(
  env: Env,
  found: { delivery: SubscriptionDeliveryRow; sub: SubscriptionRow },
  token: string,
  outcome: {
    status: "pending" | "delivered" | "failed";
    attempt: DeliveryAttempt;
    retryIndex: number;
    nextAt: number | null;
  },
) {
  const { delivery, sub } = found;
  const d1 = d1Holding(env, delivery.id);
  const db = createDb(d1);
  const t = Date.now();
  const claimHolds = sql`EXISTS (SELECT 1 FROM webhook_subscription_deliveries x WHERE x.id = ${delivery.id} AND x.claim_token = ${token})`;
  const isPending = and(eq(s.id, sub.id), eq(s.pendingDeliveryId, delivery.id), claimHolds);
  const record = db
    .update(d)
    .set({
      status: outcome.status,
      attempts: [...delivery.attempts, outcome.attempt].slice(-50),
      retryIndex: outcome.retryIndex,
      nextAttemptAt: outcome.nextAt,
      claimToken: null,
      claimedUntil: null,
      updatedAt: t,
    })
    .where(and(eq(d.id, delivery.id), eq(d.claimToken, token)));
  if (outcome.status === "pending") return void (await record);
  if (outcome.status === "delivered") {
    const [moved] = await db.batch([
      db
        .update(s)
        .set({
          cursorSeq: delivery.toSeq,
          cursorRecordId: delivery.toRecordId,
          pendingDeliveryId: null,
          consecutiveFailures: 0,
          updatedAt: t,
        })
        .where(isPending)
        .returning(),
      record,
    ]);
    // The next batch at once: a backlog drains delivery after delivery, not one a minute.
    if (moved[0]?.status === "active") await prepareBatch(env, moved[0], t);
    return;
  }
  await recordFailure(env, found, { attempt: outcome.attempt, claimHolds, isPending, record, t });
}

/** A delivery failed for good: one failure more, and at FAILURES_TO_DISABLE the subscription off and its owner told. */
async function recordFailure(
  env: Env,
  { delivery, sub }: { delivery: SubscriptionDeliveryRow; sub: SubscriptionRow },
  w: { attempt: DeliveryAttempt; claimHolds: SQL; isPending: SQL | undefined; record: BatchItem<"sqlite">; t: number },
) {
  const { attempt, claimHolds, isPending, record, t } = w;
  const d1 = d1Holding(env, delivery.id);
  const db = createDb(d1);
  const disables = sql`(SELECT x.consecutive_failures FROM webhook_subscriptions x WHERE x.id = ${sub.id}) >= ${FAILURES_TO_DISABLE - 1}`;
  const reason = `${FAILURES_TO_DISABLE} deliveries in a row failed (the last: ${attempt.error ?? `HTTP ${attempt.httpStatus}`})`;
  const notice = {
    id: noticeId(delivery.id, "webhook.subscription.disabled"),
    userId: sub.ownerId,
    kind: "webhook.subscription.disabled",
    title: "A webhook subscription was disabled",
    body: `${sub.url}: ${reason}. Fix the receiver, then PATCH /webhook/${sub.id} with status "active".`,
    data: { subscriptionId: sub.id, deliveryId: delivery.id },
    createdAt: t,
  };
  const disablesNow = sql`${disables} AND EXISTS (SELECT 1 FROM webhook_subscriptions x WHERE x.id = ${sub.id} AND x.pending_delivery_id = ${delivery.id}) AND ${claimHolds}`;
  const [inserted] = await db.batch([
    outboxNotices(db, [notice], t, disablesNow),
    subscriptionDisabledAudit(db, t, sub, reason, disablesNow),
    db
      .update(s)
      .set({
        consecutiveFailures: sql`${s.consecutiveFailures} + 1`,
        pendingDeliveryId: null,
        status: sql`CASE WHEN ${s.consecutiveFailures} + 1 >= ${FAILURES_TO_DISABLE} THEN 'disabled' ELSE ${s.status} END`,
        disabledReason: sql`CASE WHEN ${s.consecutiveFailures} + 1 >= ${FAILURES_TO_DISABLE} THEN ${reason} ELSE ${s.disabledReason} END`,
        updatedAt: t,
      })
      .where(isPending),
    record,
  ]);
  await deliverAtOnce(env, d1, inserted);
}

/**
 * Claims a pending delivery under a new token for CLAIM_MS (`free`: what else must hold for it to be claimable),
 * then reads it with its subscription; null when nothing was claimed.
 */
async function claimDelivery(db: ReturnType<typeof createDb>, deliveryId: string, now: number, free?: SQL) {
  const token = newId();
  const [claimed] = await db
    .update(d)
    .set({ claimToken: token, claimedUntil: now + CLAIM_MS })
    .where(and(eq(d.id, deliveryId), eq(d.status, "pending"), free))
    .returning({ id: d.id });
  if (!claimed) return null;
  const [found] = await db
    .select({ delivery: d, sub: s })
    .from(d)
    .innerJoin(s, eq(s.id, d.subscriptionId))
    .where(eq(d.id, deliveryId));
  return found ? { token, found } : null;
}

/** One attempt of a pending subscription delivery: claimed, sent, recorded. */
export async function attemptSubscriptionDelivery(
  env: Env,
  deliveryId: string,
  claimToken?: string,
): Promise<DeliveryOutcome> {
  const db = createDb(d1Holding(env, deliveryId));
  const now = Date.now();
  const claim = await claimDelivery(db, deliveryId, now, claimCondition(now, claimToken, d));
  if (!claim || claim.found.delivery.claimToken !== claim.token) return { state: "gone" };
  const { token, found } = claim;
  const { delivery, sub } = found;
  if (sub.isDeleted || sub.status !== "active") {
    const attempt = { at: now, durationMs: 0, error: "the subscription is disabled or deleted: nothing was sent" };
    await db
      .update(d)
      .set({
        status: "failed",
        attempts: [...delivery.attempts, attempt],
        claimToken: null,
        claimedUntil: null,
        updatedAt: now,
      })
      .where(and(eq(d.id, deliveryId), eq(d.claimToken, token)));
    await db
      .update(s)
      .set({ pendingDeliveryId: null })
      .where(and(eq(s.id, sub.id), eq(s.pendingDeliveryId, deliveryId)));
    return { state: "failed" };
  }
  const sent = await sendSignedWebhook(env, {
    id: delivery.id,
    url: sub.url,
    method: "POST",
    headers: {},
    body: delivery.body,
    sealedSecret: sub.secret,
    secretContext: sub.id,
    owner: "subscription",
  });
  const { delivered, canRetry, delaySeconds } = nextStep(sent, delivery.retryIndex);
  const status = delivered ? "delivered" : canRetry ? "pending" : "failed";
  await recordOutcome(env, found, token, {
    status,
    attempt: sent.attempt,
    retryIndex: canRetry ? delivery.retryIndex + 1 : delivery.retryIndex,
    nextAt: canRetry ? Date.now() + delaySeconds * 1000 : null,
  });
  return canRetry ? { state: "retry", delaySeconds } : { state: delivered ? "delivered" : "failed" };
}

/** A dead-lettered delivery: failed for good and counted like any failed delivery. */
export async function failSubscriptionDelivery(env: Env, deliveryId: string, reason: string): Promise<void> {
  const db = createDb(d1Holding(env, deliveryId));
  const now = Date.now();
  const claim = await claimDelivery(db, deliveryId, now);
  if (!claim) return;
  const { token, found } = claim;
  await recordOutcome(env, found, token, {
    status: "failed",
    attempt: { at: now, durationMs: 0, error: reason },
    retryIndex: found.delivery.retryIndex,
    nextAt: null,
  });
}
