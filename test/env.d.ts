import type { Env as AppEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_DIRECTORY_MIGRATIONS: import("cloudflare:test").D1Migration[];
      TEST_SHARD_MIGRATIONS: import("cloudflare:test").D1Migration[];
      /** LibreOffice Calc as a formula oracle (test/setup/calc-oracle.ts). */
      CALC_ORACLE_URL: string;
    }
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    converterUrl: string;
    converterSecret: string;
    webhookReceiverUrl: string;
    dohUrl: string;
    calcOracleUrl: string;
  }
}
