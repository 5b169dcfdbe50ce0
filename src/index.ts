import { buildApp } from "./app";
import type { Env } from "./env";
import { handleScheduled } from "./services/automations/scheduler";
import { handleAutomationBatch } from "./services/automations/queue";

export { PdfConverterContainer } from "./services/converter/container";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),

  /** Cron Trigger (wrangler.toml, every minute): due automations are claimed and their runs queued. */
  async scheduled(controller, env, ctx) {
    await handleScheduled(controller, env, ctx);
  },

  /** The automation queue and its dead-letter queue (src/services/automations/queue.ts switches on batch.queue). */
  async queue(batch, env, _ctx) {
    await handleAutomationBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
