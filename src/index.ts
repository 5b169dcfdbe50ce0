import { buildApp } from "./app";
import type { Env } from "./env";
import { handleScheduled } from "./services/automations/scheduler";
import { handleAutomationBatch } from "./services/automations/queue";
import { runsForEvents } from "./services/automations/events";
import { subscribe } from "./services/events/events";
import { startRepairs } from "./tenancy/operations/repairs";

export { PdfConverterContainer } from "./services/converter/container";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

export { DocumentRoom } from "./durable/DocumentRoom";

// Writers emit events without knowing who listens; the automations turn them into runs.
subscribe(runsForEvents);

const app = buildApp();

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),

  /**
   * Cron Trigger (wrangler.toml, every minute): the Worker's repairs start (src/tenancy/operations/repairs.ts), and due
   * automations are claimed and their runs queued.
   */
  async scheduled(controller, env, ctx) {
    startRepairs(env, ctx, Date.now());
    await handleScheduled(controller, env, ctx);
  },

  /** The automation queue and its dead-letter queue (src/services/automations/queue.ts switches on batch.queue). */
  async queue(batch, env, _ctx) {
    await handleAutomationBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
