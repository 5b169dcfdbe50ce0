// The shard databases' schema (docs/scaling.md "Plan", steps 1–2), applied to every SHARD_k: `node
// scripts/lib/tools.mjs drizzle-kit generate --config drizzle.shard.config.ts`. Not used yet: the live schema is
// drizzle.config.ts (one database) until the request path is sharded.
export default {
  dialect: "sqlite",
  schema: "./src/db/schema/shard.ts",
  out: "./migrations/shard",
};
