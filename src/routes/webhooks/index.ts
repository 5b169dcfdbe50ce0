import type { Router } from "../../openapi";
import { registerCreateWebhookSubscription } from "./create";
import { registerListWebhookSubscriptions } from "./list";
import { registerGetWebhookSubscription } from "./get";
import { registerUpdateWebhookSubscription } from "./update";
import { registerDeleteWebhookSubscription } from "./delete";
import { registerRotateWebhookSubscriptionSecret } from "./rotateSecret";
import { registerListWebhookSubscriptionDeliveries } from "./listDeliveries";
import { registerRedeliverWebhookSubscriptionDelivery } from "./redeliver";
import { registerReplayWebhookSubscription } from "./replay";

/** Webhook subscriptions (docs/api-guide.md › Webhook subscriptions). Static segments (`all`, `delivery`) before `/webhook/{id}`. */
export function registerWebhookSubscriptions(app: Router) {
  registerCreateWebhookSubscription(app);
  registerListWebhookSubscriptions(app);
  registerRedeliverWebhookSubscriptionDelivery(app);
  registerGetWebhookSubscription(app);
  registerUpdateWebhookSubscription(app);
  registerDeleteWebhookSubscription(app);
  registerRotateWebhookSubscriptionSecret(app);
  registerListWebhookSubscriptionDeliveries(app);
  registerReplayWebhookSubscription(app);
}
