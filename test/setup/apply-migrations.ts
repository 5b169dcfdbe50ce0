import { applyD1Migrations, env } from "cloudflare:test";
import { shardBindings } from "../../src/db/shards";

// Setup files run outside per-test storage and may run more than once; applyD1Migrations skips applied ones. The
// directory (DB) and every shard database of the map get the same migrations (docs/scaling.md).
await Promise.all([env.DB, ...shardBindings().map((binding) => env[binding]!)].map((db) => applyD1Migrations(db, env.TEST_MIGRATIONS)));
