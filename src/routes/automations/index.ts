import type { Router } from "../../openapi";
import { registerCreateAutomation } from "./create";
import { registerUpdateAutomation } from "./update";
import { registerGetAutomation } from "./get";
import { registerListAutomations } from "./listByProject";
import { registerDeleteAutomation } from "./delete";
import { registerRunAutomation } from "./run";
import { registerListAutomationRuns } from "./listRuns";
import { registerGetAutomationRun } from "./getRun";
import { registerRetryAutomationRun } from "./retryRun";
import { registerListWebhookDeliveries } from "./listDeliveries";
import { registerRedeliverWebhook } from "./redeliver";
import { registerRotateWebhookSecret } from "./rotateSecret";

/** Automations (E2, docs/api-guide.md › Automations, published portals, collaborative editing). Static segments (`all`, `run`, `delivery`) before `/automation/{id}/…`. */
export function registerAutomations(app: Router) {
  registerCreateAutomation(app);
  registerListAutomations(app);
  registerGetAutomationRun(app);
  registerRetryAutomationRun(app);
  registerRedeliverWebhook(app);
  registerGetAutomation(app);
  registerUpdateAutomation(app);
  registerDeleteAutomation(app);
  registerRunAutomation(app);
  registerListAutomationRuns(app);
  registerListWebhookDeliveries(app);
  registerRotateWebhookSecret(app);
}
