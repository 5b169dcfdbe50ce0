// Directory tables every shard database also keeps (docs/scaling.md "Directory and shards"): a copy of every user,
// which shard tables reference, and the Idempotency-Key claims of requests about the shard's organizations. They
// belong to directory.ts; drizzle.shard.config.ts reads this file beside shard.ts so the shard migrations create them.
export { users } from "./identity";
export { idempotencyKeys } from "./http";
