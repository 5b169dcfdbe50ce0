import { applyD1Migrations, env } from "cloudflare:test";

// Setup files run outside per-test storage and may run more than once; applyD1Migrations skips applied ones.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
