import { applyD1Migrations, env } from "cloudflare:test";
import { shardBindings } from "../../src/tenancy/kernel/map";

// Setup files run outside per-test storage and may run more than once; applyD1Migrations skips applied ones. The
// directory (DB) takes the directory's migrations and every shard database of the map the shards' (docs/scaling.md
// "Migrations per kind of database").
await Promise.all([
  applyD1Migrations(env.DB, env.TEST_DIRECTORY_MIGRATIONS),
  ...shardBindings().map((binding) => applyD1Migrations(env[binding]!, env.TEST_SHARD_MIGRATIONS)),
]);
