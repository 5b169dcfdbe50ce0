/** Queue messages of the automation queue, parsed with zod on arrival (anything else is acknowledged and logged). */
import { z } from "zod";

/** Events per retry message (a queue message holds at most 128 KB; an event is a few hundred bytes). */
export const EVENTS_PER_MESSAGE = 100;

export const AutomationMessageSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), runId: z.string().min(1).max(64) }),
  /** `claimToken`: the claim a redelivery took before queueing its attempt (webhooks.ts). */
  z.object({
    kind: z.literal("delivery"),
    deliveryId: z.string().min(1).max(64),
    claimToken: z.string().min(1).max(64).optional(),
  }),
  /** A webhook subscription's delivery (services/webhooks/deliveries.ts); `claimToken` as for a delivery. */
  z.object({
    kind: z.literal("subscriptionDelivery"),
    deliveryId: z.string().min(1).max(64),
    claimToken: z.string().min(1).max(64).optional(),
  }),
  /**
   * Events whose runs could not be created when they happened (a shard database unavailable or fenced), one shard
   * database's, retried here (events.ts). Each carries its `eventId`, and the cascade is fixed, so a retry creates
   * each run once.
   */
  z.object({
    kind: z.literal("events"),
    events: z
      .array(
        z.looseObject({
          event: z.string().max(64),
          projectId: z.string().min(1).max(64),
          eventId: z.string().min(1).max(64),
        }),
      )
      .min(1)
      .max(EVENTS_PER_MESSAGE),
    depth: z.number().int().min(0).max(16),
    cascadeId: z.string().min(1).max(64),
    causedByRun: z.boolean(),
  }),
]);
export type AutomationMessage = z.infer<typeof AutomationMessageSchema>;

export const RUN_QUEUE = "automation-runs";
export const DEAD_LETTER_QUEUE = "automation-dlq";
/** Queues accept at most 100 messages per sendBatch. */
export const SEND_BATCH_MAX = 100;

/** `delaySeconds[i]`, when given, holds message i back that long (a cascade's pace, cascade.ts). */
export async function enqueueAll(
  queue: Queue<AutomationMessage>,
  messages: readonly AutomationMessage[],
  delaySeconds?: readonly number[],
): Promise<void> {
  const chunks: MessageSendRequest<AutomationMessage>[][] = [];
  const requests = messages.map((body, i): MessageSendRequest<AutomationMessage> =>
    delaySeconds?.[i] ? { body, contentType: "json", delaySeconds: delaySeconds[i] } : { body, contentType: "json" },
  );
  for (let i = 0; i < requests.length; i += SEND_BATCH_MAX) chunks.push(requests.slice(i, i + SEND_BATCH_MAX));
  await Promise.all(chunks.map((chunk) => queue.sendBatch(chunk)));
}
