import type { Env } from "../src/env";

declare module "cloudflare:test" {
  interface ProvidedEnv extends Env {
    TEST_MIGRATIONS: D1Migration[];
  }
}

declare module "vitest" {
  export interface ProvidedContext {
    converterUrl: string;
    converterSecret: string;
  }
}
