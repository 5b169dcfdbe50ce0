import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";

/**
 * Notifications on their way to the directory (docs/scaling.md "Notifications: an outbox"). A notice that follows
 * shard work (an automation's run, a failed webhook delivery) is written here in the same batch as that work, then
 * copied into the directory's `notifications` (insert-if-absent by id) and deleted here; what a failure leaves
 * behind, the per-minute tick delivers (src/services/notifications/outbox.ts). `id` is the notification's id,
 * derived from what it announces (so a retried run cannot make a second) and issued on the organization's logical
 * shard: its last two characters are the shard key a move reads (src/tenancy/kernel/keys.ts). No foreign keys: the row is
 * the directory's, parked here.
 */
export const notificationOutbox = sqliteTable(
  "notification_outbox",
  {
    id: text("id").primaryKey(),
    userId: text("user_id").notNull(),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull().default(""),
    /** JSON text, as the directory's notifications.data. */
    data: text("data"),
    createdAt: integer("created_at").notNull(),
    /** When the row was written here: the drain takes rows older than a grace period (an immediate delivery may be on its way). */
    queuedAt: integer("queued_at").notNull(),
  },
  (t) => [index("notification_outbox_queued_idx").on(t.queuedAt)],
);
