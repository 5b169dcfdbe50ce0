import { sqliteTable, text, integer, primaryKey, index } from "drizzle-orm/sqlite-core";

/**
 * Idempotency-Key records (docs/api-guide.md › HTTP semantics: retries, caching, replicas): the first response to a (caller, key) kept 24 hours. `claim` is the id of
 * the request that holds the key; `status` is null while that request is still running.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    userId: text("user_id").notNull(),
    key: text("key").notNull(),
    claim: text("claim").notNull(),
    requestHash: text("request_hash").notNull(),
    status: integer("status"),
    contentType: text("content_type"),
    body: text("body"),
    createdAt: integer("created_at").notNull(),
    /**
     * In a shard database, the logical shard of the request that claimed the key, so the claim moves with its shard
     * (docs/scaling.md "Idempotency-Keys"); null for a claim about no one logical shard and in the directory.
     */
    logicalShard: integer("logical_shard"),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.key] }),
    index("idempotency_keys_created_idx").on(t.createdAt),
    index("idempotency_keys_logical_idx").on(t.logicalShard),
  ],
);
