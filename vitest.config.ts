import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// wrangler.toml's [assets] directory must exist before the pool reads the configuration.
import { buildAssets } from "./scripts/build-assets.mjs";

export default defineConfig(async () => {
  buildAssets();
  // Each kind of database takes its own migrations (docs/scaling.md "Migrations per kind of database").
  const directoryMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations", "directory"));
  const shardMigrations = await readD1Migrations(path.join(import.meta.dirname, "migrations", "shard"));
  return {
    plugins: [
      cloudflareTest(({ inject }) => ({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_DIRECTORY_MIGRATIONS: directoryMigrations,
            TEST_SHARD_MIGRATIONS: shardMigrations,
            // wrangler.toml ships "production"; the tests run as the local service does.
            ENVIRONMENT: "development",
            ADMIN_TOKEN: "test-admin-token",
            SIGNING_SECRET: "test-signing-secret",
            // Tests act as clients behind Cloudflare's edge: CF-Connecting-IP names the client (test/support/harness.ts).
            TRUST_CF_CONNECTING_IP: "true",
            CONVERTER_URL: (inject as (key: string) => unknown)("converterUrl") ?? "",
            CONVERTER_SECRET: (inject as (key: string) => unknown)("converterSecret") ?? "",
            WEBHOOK_ALLOWED_ORIGINS: (inject as (key: string) => unknown)("webhookReceiverUrl") ?? "",
            // CORS (test/shared/cors.test.ts): two browser-app origins; every other origin is refused.
            CORS_ALLOWED_ORIGINS: "http://app.test,http://localhost:5173",
            // Portal domains: the service's own names (BASE in test/support/harness.ts), checked through a loopback resolver.
            SERVICE_HOSTNAMES: "api.test,127.0.0.1,localhost",
            CALC_ORACLE_URL: (inject as (key: string) => unknown)("calcOracleUrl") ?? "",
            DOH_URL: `${(inject as (key: string) => unknown)("dohUrl") ?? "http://127.0.0.1:9"}/dns-query`,
          },
          // wrangler.toml's consumers, with the batch window closed: a batch leaves at once instead of waiting up to
          // 1 s (5 s for the dead letters) for more messages. Messages sent together (sendBatch) still travel as one
          // batch, and delayed ones still wait their delay; only the idle wait per hop of a run goes.
          queueConsumers: {
            "automation-runs": {
              maxBatchSize: 25,
              maxBatchTimeout: 0,
              maxRetries: 10,
              deadLetterQueue: "automation-dlq",
            },
            "automation-dlq": { maxBatchSize: 25, maxBatchTimeout: 0, maxRetries: 3 },
          },
        },
      })),
    ],
    test: {
      include: ["test/**/*.test.ts"],
      // One workerd and one module graph per worker, not per file: starting a fresh workerd and importing the Worker
      // per file cost ~4.6 s each, 374 s of the 705 s stage, against 12 s shared. Storage is shared by the files of
      // a worker (the pool keeps no per-file storage since Vitest 4), so every test makes its own users,
      // organizations and records and asserts on those alone, never on global counts.
      isolate: false,
      // Two workers, each its own workerd, even on this 2-core machine (Vitest's default there is one): most of a
      // file's time is spent waiting (queues, alarms, the converter, R2), so a second file fills it. Measured on 47
      // route files side by side on the shared machine: 121 s with one worker, 91 s with two.
      maxWorkers: 2,
      setupFiles: ["./test/setup/apply-migrations.ts", "./test/setup/openapi-responses.ts"],
      globalSetup: ["./test/setup/global.ts"],
      testTimeout: 60_000,
      hookTimeout: 120_000,
    },
  };
});
