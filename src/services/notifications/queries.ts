/**
 * The notifications area's raw statements (docs/architecture.md, "Services and statements"): the outbox's delivery
 * into the directory's notifications (./outbox), written over json_each so a delivery is two statements whatever the
 * number of rows.
 */
import { statement } from "../../db/d1";
import { writableHereSql } from "../context";

/** Notices one sender may put on one recipient per hour (a notice whose data names `invitedBy`); later ones are folded into the newest. */
export const NOTICES_PER_SENDER_PER_HOUR = 20;
const HOUR_MS = 60 * 60 * 1000;

/**
 * In the directory: copies the outbox rows `values` (a JSON array of `[id, userId, kind, title, body, data,
 * createdAt]`) into notifications, never twice, only for known users, and a sharing notice only under
 * NOTICES_PER_SENDER_PER_HOUR (./outbox copyToDirectory).
 */
export function copyNoticesStatement(dir: D1Database, values: string) {
  return statement(
    dir,
    `INSERT INTO notifications (id, user_id, kind, title, body, data, created_at)
       SELECT r.id, r.user_id, r.kind, r.title, r.body, r.data, r.created_at
       FROM (SELECT j.key AS k, j.value ->> 0 AS id, j.value ->> 1 AS user_id, j.value ->> 2 AS kind, j.value ->> 3 AS title,
               j.value ->> 4 AS body, j.value ->> 5 AS data, j.value ->> 6 AS created_at, json_extract(j.value ->> 5, '$.invitedBy') AS sender
             FROM json_each(?1) j) r
       WHERE EXISTS (SELECT 1 FROM users u WHERE u.id = r.user_id)
         AND (r.sender IS NULL
           OR (SELECT COUNT(*) FROM notifications n WHERE n.user_id = r.user_id AND json_extract(n.data, '$.invitedBy') = r.sender AND n.created_at > r.created_at - ?3)
            + (SELECT COUNT(*) FROM json_each(?1) e WHERE e.key < r.k AND e.value ->> 1 = r.user_id AND json_extract(e.value ->> 5, '$.invitedBy') = r.sender
                AND NOT EXISTS (SELECT 1 FROM notifications x WHERE x.id = e.value ->> 0))
            < ?2)
       ON CONFLICT (id) DO NOTHING`,
    values,
    NOTICES_PER_SENDER_PER_HOUR,
    HOUR_MS,
  );
}

/** In the directory: folds the sharing notices copyNoticesStatement left out into the newest such notification. */
export function foldNoticesStatement(dir: D1Database, values: string) {
  return statement(
    dir,
    `UPDATE notifications
       SET data = json_set(coalesce(notifications.data, '{}'), '$.folded', coalesce(json_extract(notifications.data, '$.folded'), 0) + f.n)
       FROM (SELECT e.value ->> 1 AS user_id, json_extract(e.value ->> 5, '$.invitedBy') AS sender, COUNT(*) AS n, MAX(e.value ->> 6) AS at
             FROM json_each(?1) e
             WHERE json_extract(e.value ->> 5, '$.invitedBy') IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM notifications x WHERE x.id = e.value ->> 0)
               AND EXISTS (SELECT 1 FROM users u WHERE u.id = e.value ->> 1)
             GROUP BY 1, 2) f
       WHERE notifications.id = (SELECT n.id FROM notifications n WHERE n.user_id = f.user_id AND json_extract(n.data, '$.invitedBy') = f.sender
         AND n.created_at > f.at - ?2 ORDER BY n.created_at DESC, n.id DESC LIMIT 1)`,
    values,
    HOUR_MS,
  );
}

/** In a shard database: the delivered rows leave the outbox. */
export function clearOutboxStatement(shard: D1Database, rows: readonly { id: string }[]) {
  return statement(
    shard,
    `DELETE FROM notification_outbox WHERE id IN (SELECT value FROM json_each(?1))`,
    JSON.stringify(rows.map((r) => r.id)),
  );
}

/** In a shard database: up to `limit` outbox rows queued by `before`, of logical shards this database may write. */
export function dueOutboxStatement(shard: D1Database, before: number, limit: number) {
  return statement(
    shard,
    `SELECT id, user_id, kind, title, body, data, created_at, queued_at FROM notification_outbox
     WHERE queued_at <= ?1 AND ${writableHereSql("notification_outbox.id")} ORDER BY queued_at LIMIT ?2`,
    before,
    limit,
  );
}
