/**
 * In-app notices to an automation's owner about work no request is waiting on (a run or a delivery that the
 * dead-letter queue gave up on). The automation is read in its shard database; the notice is written to the
 * directory, where GET /notification/all reads the owner's notices (docs/scaling.md).
 */
import { eq } from "drizzle-orm";
import { automations, notifications } from "../../db/schema";
import { shardDbOf, type ServiceContext } from "../context";
import { newId } from "../../lib/ids";

export interface OwnerNotice {
  automationId: string;
  kind: string;
  /** The title, given the automation's name. */
  title: (automationName: string) => string;
  body: string;
  data: Record<string, unknown>;
  at: number;
}

/** Notifies the owner of `automationId`; nothing when the automation is gone. */
export async function notifyAutomationOwner(ctx: ServiceContext, notice: OwnerNotice): Promise<void> {
  const { automationId } = notice;
  const [a] = await shardDbOf(ctx, automationId).select({ ownerId: automations.ownerId, name: automations.name }).from(automations).where(eq(automations.id, automationId));
  if (!a) return;
  await ctx.dir.insert(notifications).values({
    id: newId(),
    userId: a.ownerId,
    kind: notice.kind,
    title: notice.title(a.name),
    body: notice.body,
    data: notice.data,
    createdAt: notice.at,
  });
}
