/**
 * The notification outbox (docs/scaling.md "Notifications: an outbox"). Notifications live in the directory, but
 * most follow work in a shard (an automation's run, a webhook delivery that failed for good). Such a notice is
 * written to the shard's `notification_outbox` in the same batch as the work it announces, so either both commit
 * or neither does; it is then copied into the directory's `notifications` at once (insert-if-absent by id) and
 * deleted from the outbox. A copy that fails, or an isolate that dies between the two, leaves the row in the outbox,
 * and the per-minute tick (drainNotificationOutbox) delivers it. A notice's id is derived from the record it is
 * about and what it says about it (noticeId), so a retried run or a repeated delivery finds its id taken and the
 * directory keeps one.
 */
import { sql, type SQL } from "drizzle-orm";
import { notificationOutbox } from "../../db/schema";
import type { Db, Env } from "../../env";
import { d1Of } from "../../db/d1";
import { uncountedD1 } from "../../db/instrument";
import { type ServiceContext, idsWithoutContext } from "../context";
import { onEveryShardDatabase } from "../upkeep";
import { clearOutboxStatement, copyNoticesStatement, dueOutboxStatement, foldNoticesStatement } from "./queries";

/** How old an outbox row must be before the tick delivers it: the immediate delivery may still be on its way. */
export const OUTBOX_GRACE_MS = 10_000;
/** Rows per shard database per tick (one directory statement and one shard statement each, through json_each). */
export const DRAIN_BATCH = 200;

export type OutboxRow = typeof notificationOutbox.$inferSelect;

/** A notification whose every value is known. */
export interface Notice {
  id: string;
  userId: string;
  kind: string;
  title: string;
  body: string;
  data: Record<string, unknown>;
  createdAt: number;
}

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** 80 bits of a hash of `text`: four FNV-1a passes with different offsets (ids need to differ, not to be secret). */
function digest80(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let out = "";
  for (const offset of [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x7f4a7c15]) {
    let h = offset >>> 0;
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
    // 20 bits of each pass: 4 Crockford characters.
    for (let i = 0; i < 4; i++) out += CROCKFORD[(h >>> (5 * i)) & 31];
  }
  return out;
}

/**
 * The id of the notice `what` about the record `about` (a run, a delivery): the same every time it is asked, so a
 * retried run cannot make a second. Shaped as the ids of `about`'s organization: its ULID time (so notices sort
 * with the record), 16 characters hashed from `about` and `what`, and `about`'s logical shard last (the outbox
 * row's shard key, src/tenancy/kernel/keys.ts).
 */
export function noticeId(about: string, what: string): string {
  return about.slice(0, 10) + digest80(`${about}\n${what}`) + idsWithoutContext.suffixBeside(about);
}

/**
 * An INSERT of `notices` into the outbox when `condition` holds as the statement runs (a batch's own state: the claim
 * the batch still holds, say), for a batch with the shard work they announce. A notice already in the outbox is
 * left as it is; the rows inserted come back (to deliver at once, deliverNotices).
 */
export function outboxNotices(db: Db, notices: Notice[], queuedAt: number, condition: SQL = sql`true`) {
  const rows = JSON.stringify(
    notices.map((n) => [n.id, n.userId, n.kind, n.title, n.body, JSON.stringify(n.data), n.createdAt]),
  );
  return db
    .insert(notificationOutbox)
    .select(
      sql`SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, ${queuedAt} FROM json_each(${rows}) j WHERE ${condition}`,
    )
    .onConflictDoNothing()
    .returning();
}

/** The same insert made from SQL: `select` yields the outbox's columns in order (id, user_id, kind, title, body, data, created_at, queued_at). */
export function outboxSelect(db: Db, select: SQL) {
  return db.insert(notificationOutbox).select(select).onConflictDoNothing().returning();
}

/** An outbox row as a raw D1 statement returns it (column names). */
export function outboxRowOf(r: Record<string, unknown>): OutboxRow {
  return {
    id: String(r.id),
    userId: String(r.user_id),
    kind: String(r.kind),
    title: String(r.title),
    body: String(r.body ?? ""),
    data: r.data === null || r.data === undefined ? null : String(r.data),
    createdAt: Number(r.created_at),
    queuedAt: Number(r.queued_at),
  };
}

export { NOTICES_PER_SENDER_PER_HOUR } from "./queries";

/**
 * The directory's half of a delivery, one batch of two statements whatever the number of rows. The first copies
 * `rows` into notifications: a notice whose id is there already is left (never twice), one for a user the
 * directory does not know is dropped, and a sharing notice (its data names `invitedBy`, the sender) is copied only
 * while its recipient holds fewer than NOTICES_PER_SENDER_PER_HOUR from that sender within the hour before it,
 * counting the rows before it in `rows`. The second folds the sharing notices the first left out into the newest
 * such notification (`data.folded` counts what it stands for). A repeated delivery of a folded notice (the
 * directory took it but the outbox's delete was lost) folds it again: `folded` may count it twice, never a list entry.
 */
export async function copyToDirectory(dir: D1Database, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  const values = JSON.stringify(rows.map((r) => [r.id, r.userId, r.kind, r.title, r.body, r.data, r.createdAt]));
  const copy = copyNoticesStatement(dir, values);
  if (!rows.some((r) => r.data !== null && r.data.includes('"invitedBy"'))) {
    await copy.run();
    return;
  }
  const fold = foldNoticesStatement(dir, values);
  await dir.batch([copy, fold]);
}

/** The shard's half of a delivery: the delivered rows leave the outbox (one statement). */
export async function clearOutbox(shard: D1Database, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await clearOutboxStatement(shard, rows).run();
}

/**
 * Copies `rows` into the directory's notifications (copyToDirectory: never twice, sharing notices limited per
 * sender), then deletes them from `shard`'s outbox. Two round trips whatever the number of rows.
 */
export async function deliverNotices(env: Pick<Env, "DB">, shard: D1Database, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  await copyToDirectory(env.DB, rows);
  await clearOutbox(shard, rows);
}

const logDeliveryFailure = (rows: OutboxRow[], err: unknown) =>
  console.error(
    JSON.stringify({
      level: "error",
      msg: "notification delivery failed; the outbox keeps it for the tick",
      ids: rows.map((r) => r.id),
      error: String(err),
    }),
  );

/** deliverNotices right after the shard's batch committed; a failure is logged and left to the tick's drain. */
export async function deliverAtOnce(env: Pick<Env, "DB">, shard: D1Database, rows: OutboxRow[]): Promise<void> {
  try {
    await deliverNotices(env, shard, rows);
  } catch (err) {
    logDeliveryFailure(rows, err);
  }
}

/**
 * A request's delivery, right after the shard batch that queued `rows` committed: the directory's copy before the
 * answer (one round trip, counted in the request's `x-d1-round-trips`, so the recipient's listing shows the notice
 * once the answer is out), the outbox's delete after it (waitUntil, uncounted). A failure of either is logged and
 * left to the tick's drain.
 */
export async function deliverBeforeAnswer(ctx: ServiceContext, rows: OutboxRow[]): Promise<void> {
  if (rows.length === 0) return;
  try {
    await copyToDirectory(d1Of(ctx.dir), rows);
  } catch (err) {
    logDeliveryFailure(rows, err);
    return;
  }
  const shard = ctx.d1;
  ctx.waitUntil(clearOutbox(uncountedD1(shard), rows).catch((err) => logDeliveryFailure(rows, err)));
}

export interface DrainResult {
  delivered: number;
  /** Shard databases whose drain failed this time (logged; their rows wait for the next tick). */
  failed: number;
}

/**
 * The tick's half of the outbox: on every shard database at once, up to `limit` rows queued more than
 * OUTBOX_GRACE_MS before `now` are delivered (deliverNotices). Rows of a logical shard fenced here (a move under
 * way, or moved away) are left: the database that serves the shard delivers them.
 */
export async function drainNotificationOutbox(env: Env, now: number, limit = DRAIN_BATCH): Promise<DrainResult> {
  const { total, failed } = await onEveryShardDatabase(env, "notification outbox drain", async (shard) => {
    const { results } = await dueOutboxStatement(shard, now - OUTBOX_GRACE_MS, limit).all<Record<string, unknown>>();
    const rows = results.map(outboxRowOf);
    await deliverNotices(env, shard, rows);
    return rows.length;
  });
  return { delivered: total, failed };
}
