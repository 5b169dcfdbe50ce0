/**
 * The automation Queue consumer. Messages are parsed with zod; each is acknowledged or retried on its own.
 * Runs: executed (a redelivered message finds its run already claimed and is acknowledged). Deliveries: one
 * attempt each; a retryable failure is retried with the §14 delay. An unexpected failure (D1 unavailable…) is
 * retried with backoff; what exhausts max_retries lands on the dead-letter queue, whose consumer fails the
 * run or delivery for good and tells the owner — nothing is dropped silently.
 */
import type { Env } from "../../env";
import { AutomationMessageSchema, DEAD_LETTER_QUEUE } from "./messages";
import { executeRun, failRunForGood } from "./runner";
import { attemptDelivery, failDeliveryForGood } from "./webhooks";

function log(msg: string, extra: Record<string, unknown>) {
  console.error(JSON.stringify({ level: "error", msg, ...extra }));
}

async function handleOne(message: Message<unknown>, env: Env, deadLetter: boolean): Promise<void> {
  const parsed = AutomationMessageSchema.safeParse(message.body);
  if (!parsed.success) {
    log("unreadable automation queue message", { id: message.id, issues: parsed.error.issues.map((i) => i.message) });
    message.ack();
    return;
  }
  const body = parsed.data;
  try {
    if (deadLetter) {
      const reason = `Gave up after ${message.attempts} queue attempt(s)`;
      if (body.kind === "run") await failRunForGood(env, body.runId, reason);
      else await failDeliveryForGood(env, body.deliveryId, reason);
      message.ack();
      return;
    }
    if (body.kind === "run") {
      await executeRun(env, body.runId);
      message.ack();
    } else {
      const outcome = await attemptDelivery(env, body.deliveryId, body.claimToken);
      if (outcome.state === "retry") message.retry({ delaySeconds: outcome.delaySeconds });
      else message.ack();
    }
  } catch (err) {
    log("automation queue message failed", { id: message.id, kind: body.kind, error: String(err) });
    message.retry({ delaySeconds: Math.min(300, 2 ** Math.min(message.attempts, 8)) });
  }
}

export async function handleAutomationBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const deadLetter = batch.queue === DEAD_LETTER_QUEUE;
  await Promise.all(batch.messages.map((m) => handleOne(m, env, deadLetter)));
}
