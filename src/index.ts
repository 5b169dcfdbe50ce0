import { buildApp } from "./app";
import type { Env } from "./env";
import { countingD1 } from "./db/instrument";
import { handleScheduled } from "./services/automations/scheduler";
import { handleAutomationBatch } from "./services/automations/queue";

export { PdfConverterContainer } from "./services/converter/container";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

const app = buildApp();

export default {
  async fetch(request, env, ctx) {
    const counter = { count: 0 };
    const res = await app.fetch(request, { ...env, DB: countingD1(env.DB, counter) }, ctx);
    // A fresh Response keeps the body streaming and makes headers writable whatever produced `res`.
    const out = new Response(res.body, res);
    out.headers.set("x-d1-round-trips", String(counter.count));
    return out;
  },

  /** Cron Trigger (wrangler.toml, every minute): due automations are claimed and their runs queued. */
  async scheduled(controller, env, ctx) {
    await handleScheduled(controller, env, ctx);
  },

  /** The automation queue and its dead-letter queue (src/services/automations/queue.ts switches on batch.queue). */
  async queue(batch, env, _ctx) {
    await handleAutomationBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
