/**
 * A webhook subscription's deliveries and what can be done about them (docs/api-guide.md › Webhook subscriptions):
 * the delivery log, a redelivery, and a replay from a cursor of the change log.
 */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { webhookSubscriptionDeliveries, webhookSubscriptions } from "../../../db/schema";
import { ApiError, conflict, notFound } from "../../../errors";
import { newId } from "../../../lib/ids";
import { keptAnswerUpdates } from "../../idempotency";
import { read, type ServiceContext } from "../../context";
import { decodeCursor, retentionDays } from "../../changes/feed";
import { decodeIdCursor, encodeIdCursor } from "../crud";
import { enqueueAll } from "../messages";
import { claimCondition, redeliveryClaim } from "../webhooks";
import {
  checkSubscriptionAccess,
  subscriptionAccessQuery,
  subscriptionCursor,
  subscriptionDeliveryDto,
  subscriptionDto,
} from "./model";
import { deliveryRedeliveredAudit, subscriptionReplayedAudit } from "./audit";
import { prepareBatch } from "./pump";

const d = webhookSubscriptionDeliveries;
const s = webhookSubscriptions;
const DAY_MS = 86_400_000;

/** `GET /webhook/{id}/deliveries`: newest first, keyset-paged; one round trip with access. */
export async function listSubscriptionDeliveries(
  ctx: ServiceContext,
  input: { id: string; limit: number; cursor?: string; status?: "pending" | "delivered" | "failed" },
) {
  const before = input.cursor ? decodeIdCursor(input.cursor) : null;
  const [[row], rows] = await read(ctx, [
    subscriptionAccessQuery(ctx.db, ctx.user.ref, input.id),
    ctx.db
      .select()
      .from(d)
      .where(
        and(
          eq(d.subscriptionId, input.id),
          before ? lt(d.id, before) : undefined,
          input.status ? eq(d.status, input.status) : undefined,
        ),
      )
      .orderBy(desc(d.id))
      .limit(input.limit + 1),
  ]);
  checkSubscriptionAccess(ctx.user, row, "read");
  const page = rows.slice(0, input.limit);
  return {
    data: page.map((x) => subscriptionDeliveryDto(x, ctx.now)),
    nextCursor: rows.length > input.limit ? encodeIdCursor(page.at(-1)!.id) : null,
  };
}

/**
 * `POST /webhook/delivery/{id}/redeliver`: the delivery sent again (same `webhook-id`, the same entries), the retry
 * schedule afresh. Claimed here, so one attempt at a time (409 while one is in flight). A failed delivery still at
 * its subscription's cursor becomes the subscription's pending one again: delivered, it moves the cursor.
 */
export async function redeliverSubscriptionDelivery(ctx: ServiceContext, { deliveryId }: { deliveryId: string }) {
  const [[delivery], [row]] = await read(ctx, [
    ctx.db.select().from(d).where(eq(d.id, deliveryId)),
    subscriptionAccessQuery(
      ctx.db,
      ctx.user.ref,
      sql`(SELECT x.subscription_id FROM webhook_subscription_deliveries x WHERE x.id = ${deliveryId})`,
    ),
  ]);
  if (!delivery) throw notFound("Delivery");
  const { sub } = checkSubscriptionAccess(ctx.user, row, "change", "Delivery");
  const token = newId();
  const claim = redeliveryClaim(ctx.now, token);
  const claimedHere = sql`EXISTS (SELECT 1 FROM webhook_subscription_deliveries x WHERE x.id = ${deliveryId} AND x.claim_token = ${token})`;
  const kept = await keptAnswerUpdates(ctx, {
    payload: { data: subscriptionDeliveryDto({ ...delivery, ...claim }, ctx.now) },
    when: claimedHere,
  });
  const [claimed] = await ctx.db.batch([
    ctx.db
      .update(d)
      .set(claim)
      .where(and(eq(d.id, deliveryId), claimCondition(ctx.now, undefined, d)))
      .returning(),
    ctx.db
      .update(s)
      .set({ pendingDeliveryId: deliveryId })
      .where(
        and(
          eq(s.id, delivery.subscriptionId),
          sql`${s.pendingDeliveryId} IS NULL`,
          eq(s.cursorSeq, delivery.fromSeq),
          eq(s.cursorRecordId, delivery.fromRecordId),
          claimedHere,
        ),
      ),
    deliveryRedeliveredAudit(ctx, sub, delivery, claimedHere),
    ...kept,
  ]);
  if (!claimed.length) throw conflict("An attempt of this delivery is in flight: try again when it has finished");
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "subscriptionDelivery", deliveryId, claimToken: token }]);
  return subscriptionDeliveryDto(claimed[0]!, ctx.now);
}

/**
 * `POST /webhook/{id}/replay { cursor }`: the subscription's cursor set back (or forward) to a cursor of the change
 * feed or of a delivery; the delivery in flight is dropped, failures reset, and the next batch is prepared at once.
 * A cursor older than retention is 410.
 */
export async function replaySubscription(ctx: ServiceContext, input: { id: string; cursor: string }) {
  const cursor = decodeCursor(input.cursor);
  const [[row]] = await read(ctx, [subscriptionAccessQuery(ctx.db, ctx.user.ref, input.id)]);
  const { sub } = checkSubscriptionAccess(ctx.user, row, "change");
  if (cursor.at < ctx.now - retentionDays(ctx.env) * DAY_MS)
    throw new ApiError("GoneError", "The cursor is older than the change log keeps", {
      details: [{ path: "cursor", message: "past retention" }],
    });
  const set = {
    cursorSeq: cursor.seq,
    cursorRecordId: cursor.recordId,
    pendingDeliveryId: null,
    consecutiveFailures: 0,
    updatedAt: ctx.now,
  };
  const dto = subscriptionDto({ ...sub, ...set }, ctx.now, { canChange: true });
  const superseded = { at: ctx.now, durationMs: 0, error: "superseded by a replay" };
  const [, , [updated]] = await ctx.db.batch([
    ctx.db
      .update(d)
      .set({
        status: "failed",
        attempts: sql`json_insert(${d.attempts}, '$[#]', json(${JSON.stringify(superseded)}))`,
        claimToken: null,
        claimedUntil: null,
        nextAttemptAt: null,
        updatedAt: ctx.now,
      })
      .where(and(eq(d.subscriptionId, sub.id), eq(d.status, "pending"))),
    subscriptionReplayedAudit(ctx, sub, {
      before: subscriptionCursor(sub, ctx.now),
      after: subscriptionCursor({ ...sub, ...set }, ctx.now),
    }),
    ctx.db.update(s).set(set).where(eq(s.id, sub.id)).returning(),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  if (updated?.status === "active") ctx.waitUntil(prepareBatch(ctx.env, updated, ctx.now));
  return dto;
}
