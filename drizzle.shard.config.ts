// The shard databases' schema (docs/scaling.md "Directory and shards", "Not built yet"), applied to every SHARD_k: `node
// scripts/lib/tools.mjs drizzle-kit generate --config drizzle.shard.config.ts`. Not used yet: every
// database takes the full migrations of drizzle.config.ts until migrations are split per kind.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/shard.ts",
  out: "./migrations/shard",
};
