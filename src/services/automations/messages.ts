/** Queue messages of the automation queue, parsed with zod on arrival (anything else is acknowledged and logged). */
import { z } from "zod";

export const AutomationMessageSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("run"), runId: z.string().min(1).max(64) }),
  /** `claimToken`: the claim a redelivery took before queueing its attempt (webhooks.ts). */
  z.object({ kind: z.literal("delivery"), deliveryId: z.string().min(1).max(64), claimToken: z.string().min(1).max(64).optional() }),
]);
export type AutomationMessage = z.infer<typeof AutomationMessageSchema>;

export const RUN_QUEUE = "automation-runs";
export const DEAD_LETTER_QUEUE = "automation-dlq";
/** Queues accept at most 100 messages per sendBatch. */
export const SEND_BATCH_MAX = 100;

export async function enqueueAll(queue: Queue<AutomationMessage>, messages: readonly AutomationMessage[]): Promise<void> {
  const chunks: MessageSendRequest<AutomationMessage>[][] = [];
  for (let i = 0; i < messages.length; i += SEND_BATCH_MAX) chunks.push(messages.slice(i, i + SEND_BATCH_MAX).map((body) => ({ body, contentType: "json" })));
  await Promise.all(chunks.map((chunk) => queue.sendBatch(chunk)));
}
