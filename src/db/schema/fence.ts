import { sqliteTable, text, integer } from "drizzle-orm/sqlite-core";

/**
 * The fence of a shard database (docs/scaling.md "Moving a logical shard"): one row per logical shard this database has a say
 * about while a move is under way or after it. No row means `active` (the database serves the shard as the map
 * says). `read-only`: the shard's rows are here but a move is copying them, so writes are refused and reads go on;
 * `moved`: the rows here (if any) are a stale copy, the shard lives in `moved_to` (a binding name). Write batches
 * carry the guard of src/tenancy/kernel/fence.ts, which refuses them unless the shard is `active` here.
 */
export const shardFence = sqliteTable("shard_fence", {
  logical: integer("logical").primaryKey(),
  state: text("state", { enum: ["active", "read-only", "moved"] }).notNull(),
  movedTo: text("moved_to"),
  updatedAt: integer("updated_at").notNull(),
});
