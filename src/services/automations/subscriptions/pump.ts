/**
 * Feeding webhook subscriptions from the change log (docs/api-guide.md › Webhook subscriptions). After a write to a
 * project (nudgeSubscriptions, below) and every minute in the scheduled upkeep (src/index.ts REPAIRS, over every
 * shard database), active subscriptions with no delivery in flight and entries past their cursor get one batch
 * each: up to ENTRIES_PER_DELIVERY entries the subscription takes (its events and columnIds), in log order, from at
 * most ENTRIES_SCANNED entries after its cursor, and less than BODY_BYTES of them. The batch becomes a delivery row
 * and the subscription's `pendingDeliveryId`, in one conditional write (a second tick finds the subscription
 * taken), and goes to the Queue, whose consumer sends it (./deliveries.ts). Entries it skips only move the cursor. A
 * delivered batch prepares the next one at once, so a backlog drains batch after batch without waiting for the
 * minute. Work per tick is bounded: SUBSCRIPTIONS_PER_TICK per database, PUMP_MS in all.
 */
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Env } from "../../../env";
import { createDb } from "../../../db/client";
import { changeLog, webhookSubscriptionDeliveries, webhookSubscriptions } from "../../../db/schema";
import { entryDto } from "../../changes/feed";
import { d1Holding, idsWithoutContext } from "../../context";
import { onEveryShardDatabase } from "../../upkeep";
import { enqueueAll } from "../messages";
import { ENTRIES_PER_DELIVERY, ENTRIES_SCANNED, subscriptionCursor, takesEntry, type SubscriptionRow } from "./model";
import { foldQuery } from "../../changes/staged";

const SUBSCRIPTIONS_PER_TICK = 50;
/** JSON bytes of a delivery's entries (D1 keeps at most 2 MB in one value); one entry always goes, whatever its size. */
const BODY_BYTES = 1_000_000;
const PUMP_MS = 20_000;
const LANES = 4;
/** A pending delivery this long past its attempt, with no claim, lost its Queue message: it is queued again. */
const STALE_MS = 10 * 60_000;

const s = webhookSubscriptions;

/** The owner still has a role in the scope's workspace, and the project (and table) still stand. */
function scopeStands(sub: SubscriptionRow) {
  return sql<number>`EXISTS (SELECT 1 FROM projects p JOIN workspace_collaborators wc ON wc.workspace_id = p.workspace_id
      WHERE p.id = ${sub.projectId} AND wc.user_id = ${sub.ownerId})
    AND (${sub.tableId} IS NULL OR EXISTS (SELECT 1 FROM tables t WHERE t.id = ${sub.tableId} AND t.is_deleted = 0))`;
}

/**
 * The entries of the next delivery among `entries` (read after the cursor, in order): the ones the subscription
 * takes, up to ENTRIES_PER_DELIVERY and BODY_BYTES, and the last entry the batch covers (taken or skipped).
 */
function fillBatch(sub: SubscriptionRow, entries: (typeof changeLog.$inferSelect)[], now: number) {
  const taken: ReturnType<typeof entryDto>[] = [];
  let last = entries.at(-1);
  let bytes = 0;
  for (const e of entries) {
    if (!takesEntry(sub, e)) continue;
    const dto = entryDto(e, now);
    const size = JSON.stringify(dto).length;
    // A body stays well inside what D1 stores in one value: the entry that would pass BODY_BYTES starts the next batch.
    if (taken.length && bytes + size > BODY_BYTES) {
      last = entries[entries.indexOf(e) - 1];
      break;
    }
    taken.push(dto);
    bytes += size;
    if (taken.length === ENTRIES_PER_DELIVERY) {
      last = e;
      break;
    }
  }
  return { taken, last };
}

/** The subscription's next batch, if any: a delivery queued, the cursor moved past skipped entries, or nothing. */
export async function prepareBatch(env: Env, sub: SubscriptionRow, now = Date.now()): Promise<"queued" | "idle"> {
  const db = createDb(d1Holding(env, sub.id));
  const after = sql`(${changeLog.seq}, ${changeLog.recordId}) > (${sub.cursorSeq}, ${sub.cursorRecordId})`;
  // What large writes staged is folded first (../../changes/staged.ts): no entry is taken past one still staged.
  const [, entries, [stands]] = await db.batch([
    foldQuery(db),
    db
      .select()
      .from(changeLog)
      .where(
        and(
          eq(changeLog.projectId, sub.projectId),
          sub.tableId ? eq(changeLog.tableId, sub.tableId) : undefined,
          after,
        ),
      )
      .orderBy(asc(changeLog.seq), asc(changeLog.recordId))
      .limit(ENTRIES_SCANNED),
    db.select({ ok: scopeStands(sub) }).from(sql`(SELECT 1)`),
  ]);
  const unchanged = and(
    eq(s.id, sub.id),
    eq(s.status, "active"),
    isNull(s.pendingDeliveryId),
    eq(s.cursorSeq, sub.cursorSeq),
    eq(s.cursorRecordId, sub.cursorRecordId),
  );
  if (!stands?.ok) {
    const reason = "Its owner can no longer read its project or table, or it was deleted";
    await db.update(s).set({ status: "disabled", disabledReason: reason, updatedAt: now }).where(unchanged);
    return "idle";
  }
  const { taken, last } = fillBatch(sub, entries, now);
  if (!last) return "idle";
  if (!taken.length) {
    await db.update(s).set({ cursorSeq: last.seq, cursorRecordId: last.recordId, updatedAt: now }).where(unchanged);
    return "idle";
  }
  const id = idsWithoutContext.beside(sub.id);
  const cursor = subscriptionCursor({ cursorSeq: last.seq, cursorRecordId: last.recordId }, now);
  const body = JSON.stringify({ subscriptionId: sub.id, entries: taken, cursor });
  const [claimed] = await db.batch([
    db.update(s).set({ pendingDeliveryId: id, updatedAt: now }).where(unchanged).returning({ id: s.id }),
    db.insert(webhookSubscriptionDeliveries).select(
      sql`SELECT ${id}, ${sub.id}, ${body}, ${taken.length}, ${sub.cursorSeq}, ${sub.cursorRecordId}, ${last.seq},
        ${last.recordId}, 'pending', '[]', 0, ${now}, NULL, NULL, ${now}, ${now}
        WHERE EXISTS (SELECT 1 FROM webhook_subscriptions x WHERE x.id = ${sub.id} AND x.pending_delivery_id = ${id})`,
    ),
  ]);
  if (!claimed.length) return "idle";
  await enqueueAll(env.AUTOMATION_QUEUE, [{ kind: "subscriptionDelivery", deliveryId: id }]);
  return "queued";
}

/** One shard database's share of the tick: due subscriptions prepared, lost deliveries queued again. */
async function pumpShard(env: Env, d1: D1Database, now: number, deadline: number): Promise<number> {
  const db = createDb(d1);
  const d = webhookSubscriptionDeliveries;
  const [due, stale] = await db.batch([
    db
      .select()
      .from(s)
      .where(
        and(
          eq(s.status, "active"),
          eq(s.isDeleted, false),
          isNull(s.pendingDeliveryId),
          // New entries in its scope (through the log's table or project index): a table's subscription is not
          // due for writes elsewhere in its project, so it cannot hold the tick's places without ever sending.
          sql`CASE WHEN "webhook_subscriptions"."table_id" IS NULL
            THEN EXISTS (SELECT 1 FROM change_log c WHERE c.project_id = "webhook_subscriptions"."project_id"
              AND (c.seq, c.record_id) > ("webhook_subscriptions"."cursor_seq", "webhook_subscriptions"."cursor_record_id"))
            ELSE EXISTS (SELECT 1 FROM change_log c WHERE c.table_id = "webhook_subscriptions"."table_id"
              AND (c.seq, c.record_id) > ("webhook_subscriptions"."cursor_seq", "webhook_subscriptions"."cursor_record_id"))
            END`,
        ),
      )
      .orderBy(asc(s.updatedAt))
      .limit(SUBSCRIPTIONS_PER_TICK),
    db
      .update(d)
      .set({ nextAttemptAt: now })
      .where(
        sql`${d.id} IN (SELECT x.id FROM webhook_subscription_deliveries x WHERE x.status = 'pending'
          AND x.next_attempt_at < ${now - STALE_MS} AND (x.claimed_until IS NULL OR x.claimed_until < ${now}) LIMIT 100)`,
      )
      .returning({ id: d.id }),
  ]);
  await enqueueAll(
    env.AUTOMATION_QUEUE,
    stale.map((x) => ({ kind: "subscriptionDelivery" as const, deliveryId: x.id })),
  );
  let next = 0;
  let queued = 0;
  await Promise.all(
    Array.from({ length: Math.min(LANES, due.length) }, async () => {
      while (next < due.length && Date.now() < deadline) {
        const sub = due[next++]!;
        if ((await prepareBatch(env, sub, now)) === "queued") queued++;
      }
    }),
  );
  return queued;
}

/** The tick over every shard database at once; a database that fails is tried again at the next tick. */
export async function pumpSubscriptions(env: Env, now: number): Promise<number> {
  const deadline = Date.now() + PUMP_MS;
  return (await onEveryShardDatabase(env, "webhook subscription pump", (d1) => pumpShard(env, d1, now, deadline)))
    .total;
}

/** Projects, and subscriptions in each, a write's nudge looks at (the minute's tick does the rest). */
const NUDGE_PROJECTS = 10;
const NUDGE_SUBSCRIPTIONS = 10;

/**
 * The nudge after a write (an event consumer, src/index.ts; it runs after the response): the written projects'
 * idle subscriptions get their next batch at once instead of at the next minute. One indexed read per project;
 * what it leaves (a busy subscription, a crash before it ran) the tick takes up.
 */
export async function nudgeSubscriptions(env: Env, events: readonly { projectId: string }[]): Promise<number> {
  const projects = [...new Set(events.map((e) => e.projectId))].slice(0, NUDGE_PROJECTS);
  const counts = await Promise.all(
    projects.map(async (projectId) => {
      const db = createDb(d1Holding(env, projectId));
      const idle = await db
        .select()
        .from(s)
        .where(
          and(eq(s.projectId, projectId), eq(s.status, "active"), eq(s.isDeleted, false), isNull(s.pendingDeliveryId)),
        )
        .limit(NUDGE_SUBSCRIPTIONS);
      let queued = 0;
      for (const sub of idle) if ((await prepareBatch(env, sub)) === "queued") queued++;
      return queued;
    }),
  );
  return counts.reduce((a, b) => a + b, 0);
}
