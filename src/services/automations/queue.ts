/**
 * The automation Queue consumer. Messages are parsed with zod; each is acknowledged or retried on its own.
 * Runs: executed (a redelivered message finds its run already claimed and is acknowledged). Deliveries: one
 * attempt each; a retryable failure is retried with the delay of webhooks.ts' retry schedule. An unexpected failure (D1 unavailable…) is
 * retried with backoff; what exhausts max_retries lands on the dead-letter queue, whose consumer fails the
 * run or delivery for good and tells the owner — nothing is dropped silently.
 */
import type { Env } from "../../env";
import { createDb } from "../../db/client";
import { learnFromFence } from "../context";
import { AutomationMessageSchema, DEAD_LETTER_QUEUE } from "./messages";
import { executeRun, failRunForGood } from "./runner";
import { attemptDelivery, failDeliveryForGood } from "./webhooks";
import { retryEvents } from "./events";
import { attemptSubscriptionDelivery, failSubscriptionDelivery } from "./subscriptions/deliveries";

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
      else if (body.kind === "delivery") await failDeliveryForGood(env, body.deliveryId, reason);
      else if (body.kind === "subscriptionDelivery") await failSubscriptionDelivery(env, body.deliveryId, reason);
      // Events whose runs could never be created: no record of them exists to fail, so the log says so.
      else
        log("gave up creating the runs of events", {
          id: message.id,
          events: body.events.length,
          cascadeId: body.cascadeId,
          reason,
        });
      message.ack();
      return;
    }
    if (body.kind === "run") {
      await executeRun(env, body.runId);
      message.ack();
    } else if (body.kind === "events") {
      await retryEvents(env, body);
      message.ack();
    } else {
      const attempt = body.kind === "delivery" ? attemptDelivery : attemptSubscriptionDelivery;
      const outcome = await attempt(env, body.deliveryId, body.claimToken);
      if (outcome.state === "retry") message.retry({ delaySeconds: outcome.delaySeconds });
      else message.ack();
    }
  } catch (err) {
    // A shard moving (docs/scaling.md "Moving a logical shard"): nothing was written; retried soon, and once it has
    // moved this isolate learns where from the directory, so the retry goes there.
    const fenced = await learnFromFence(createDb(env.DB), err);
    if (!fenced) log("automation queue message failed", { id: message.id, kind: body.kind, error: String(err) });
    message.retry({ delaySeconds: fenced ? 2 : Math.min(300, 2 ** Math.min(message.attempts, 8)) });
  }
}

/**
 * Runs of one batch executed at the same time. Runs share their shard database with its tenants' requests: a
 * batch of 25 runs at once (a cascade's fan-out) held other tenants' requests for seconds, so runs take turns on
 * RUN_CONCURRENCY lanes (each run paces its own actions, runner.ts); deliveries, waiting mostly on the network, on more lanes.
 */
export const RUN_CONCURRENCY = 2;
/**
 * Deliveries of one batch sent at the same time: each also claims and records its delivery in D1, so a batch of 25
 * at once (a cascade's webhook fan-out) came down on the database together; DELIVERY_CONCURRENCY lanes overlap
 * their network waits without that burst.
 */
export const DELIVERY_CONCURRENCY = 5;

async function inLanes<T>(
  items: readonly T[],
  lanes: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(lanes, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        await fn(items[i]!, i);
      }
    }),
  );
}

export async function handleAutomationBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
  const deadLetter = batch.queue === DEAD_LETTER_QUEUE;
  const isRun = (m: Message<unknown>) => !deadLetter && (m.body as { kind?: unknown } | null)?.kind === "run";
  const runs = batch.messages.filter(isRun);
  const others = batch.messages.filter((m) => !isRun(m));
  await Promise.all([
    inLanes(runs, RUN_CONCURRENCY, (m) => handleOne(m, env, deadLetter)),
    inLanes(others, DELIVERY_CONCURRENCY, (m) => handleOne(m, env, deadLetter)),
  ]);
}
