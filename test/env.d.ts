import type { Env as AppEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    converterUrl: string;
    converterSecret: string;
    webhookReceiverUrl: string;
    dohUrl: string;
  }
}
