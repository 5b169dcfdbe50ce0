import { buildApp } from "./app";
import type { Env } from "./env";

const app = buildApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
