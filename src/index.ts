import { buildApp } from "./app";
import type { Env } from "./env";
import { handleScheduled } from "./services/automations/scheduler";
import { handleAutomationBatch } from "./services/automations/queue";
import { runsForEvents } from "./services/automations/events";
import { nudgeLogTriggers, readLogTriggers } from "./services/automations/logTriggers";
import { subscribe } from "./services/events/events";
import { startRepairs, type Repair } from "./tenancy";
import { repairUserCopies } from "./services/identity/users";
import { drainNotificationOutbox } from "./services/notifications/outbox";
import { reconcileUserOrganizations } from "./services/organizations/userOrganizations";
import { reconcilePortalRoutes } from "./services/portals/routes";
import { reconcileReferenceIds } from "./services/references/referenceIds";
import { sweepStagedImports } from "./services/tableCsv/sweep";
import { pruneAuditLog, pruneChangeLog } from "./services/changes/prune";
import { foldEveryShard } from "./services/changes/staged";
import { nudgeSubscriptions, pumpSubscriptions } from "./services/automations/subscriptions/pump";
import { pruneOAuthGrants } from "./services/oauth/prune";

export { PdfConverterContainer } from "./services/converter/container";

export { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";

export { DocumentRoom } from "./durable/DocumentRoom";

// Writers emit events without knowing who listens; the automations turn them into runs.
subscribe(runsForEvents);
// Row, new-document and new-comment events' runs start from the change log: their events read the projects' logs at once.
subscribe(nudgeLogTriggers);
// Webhook subscriptions of the written projects send their next batch at once (the tick does it otherwise).
subscribe(nudgeSubscriptions);

const app = buildApp();

/**
 * The repairs the `scheduled` handler starts every minute (docs/scaling.md "Repairs"), run by the tenancy module
 * (src/tenancy/operations/repairs.ts): each service defines its own, this list composes them. Not the automation
 * scheduler's work: that one only claims due automations.
 */
const REPAIRS: readonly Repair[] = [
  ["user copy repair failed", repairUserCopies],
  ["portal route repair failed", reconcilePortalRoutes],
  ["reference id repair failed", reconcileReferenceIds],
  ["membership index repair failed", reconcileUserOrganizations],
  ["notification outbox drain failed", drainNotificationOutbox],
  ["staged CSV import sweep failed", sweepStagedImports],
  ["staged change-log fold failed", foldEveryShard],
  ["change log prune failed", pruneChangeLog],
  ["webhook subscription pump failed", pumpSubscriptions],
  ["automation log trigger read failed", readLogTriggers],
  ["oauth grant prune failed", pruneOAuthGrants],
  ["audit log prune failed", pruneAuditLog],
];

export default {
  fetch: (request, env, ctx) => app.fetch(request, env, ctx),

  /**
   * Cron Trigger (wrangler.toml, every minute): the Worker's repairs start (REPAIRS above), and due
   * automations are claimed and their runs queued.
   */
  async scheduled(controller, env, ctx) {
    startRepairs(env, ctx, Date.now(), REPAIRS);
    await handleScheduled(controller, env, ctx);
  },

  /** The automation queue and its dead-letter queue (src/services/automations/queue.ts switches on batch.queue). */
  async queue(batch, env, _ctx) {
    await handleAutomationBatch(batch, env);
  },
} satisfies ExportedHandler<Env>;
