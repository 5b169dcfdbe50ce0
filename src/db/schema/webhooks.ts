import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import type { DeliveryAttempt } from "./automations";

/**
 * Webhook subscriptions (docs/api-guide.md › Webhook subscriptions): a URL fed with the change log of a project or
 * one of its tables. Each keeps its own cursor into its database's change log, `(cursorSeq, cursorRecordId)`: the
 * last entry delivered (or skipped by its filters). `pendingDeliveryId` holds the one delivery in flight; a batch is
 * prepared only while it is null, so deliveries go out one at a time, in order, and the cursor moves only when one
 * is delivered. Ids are issued beside the project, so a subscription lives with its project's change log.
 */
export const webhookSubscriptions = sqliteTable(
  "webhook_subscriptions",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    workspaceId: text("workspace_id").notNull(),
    /** Set when the scope is a table (else the whole project). */
    tableId: text("table_id"),
    ownerId: text("owner_id").notNull(),
    url: text("url").notNull(),
    description: text("description").notNull().default(""),
    /** Kind patterns: `row.updated`, `row.*`, `*`. */
    events: text("events", { mode: "json" }).$type<string[]>().notNull(),
    /** A row.updated entry is delivered only when one of these columns changed (null: any). */
    columnIds: text("column_ids", { mode: "json" }).$type<string[] | null>(),
    /** `whsec_…`, sealed (lib/crypto sealSecret) with the subscription's id as context. */
    secret: text("secret").notNull(),
    status: text("status", { enum: ["active", "disabled"] }).notNull(),
    disabledReason: text("disabled_reason"),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    cursorSeq: integer("cursor_seq").notNull(),
    cursorRecordId: text("cursor_record_id").notNull(),
    pendingDeliveryId: text("pending_delivery_id"),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("webhook_subscriptions_owner_idx").on(t.ownerId, t.id),
    index("webhook_subscriptions_project_idx").on(t.projectId, t.id),
    index("webhook_subscriptions_due_idx").on(t.status, t.isDeleted, t.pendingDeliveryId),
  ],
);

/**
 * One batch of a subscription's entries (`body` as sent), from the cursor `(fromSeq, fromRecordId)` exclusive to
 * `(toSeq, toRecordId)` inclusive. Sent and retried like automation deliveries (services/automations/webhooks.ts).
 */
export const webhookSubscriptionDeliveries = sqliteTable(
  "webhook_subscription_deliveries",
  {
    id: text("id").primaryKey(),
    subscriptionId: text("subscription_id").notNull(),
    body: text("body").notNull(),
    entryCount: integer("entry_count").notNull(),
    fromSeq: integer("from_seq").notNull(),
    fromRecordId: text("from_record_id").notNull(),
    toSeq: integer("to_seq").notNull(),
    toRecordId: text("to_record_id").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: text("attempts", { mode: "json" }).$type<DeliveryAttempt[]>().notNull(),
    retryIndex: integer("retry_index").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    claimToken: text("claim_token"),
    claimedUntil: integer("claimed_until"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("webhook_subscription_deliveries_list_idx").on(t.subscriptionId, t.id),
    index("webhook_subscription_deliveries_due_idx").on(t.status, t.nextAttemptAt),
  ],
);
