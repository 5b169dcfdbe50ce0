/**
 * An automation's runs and deliveries (docs/api-guide.md › Automations, published portals, collaborative editing):
 * manual runs and retries, run and delivery listings, redelivery. Access through src/auth/access.ts.
 */
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { automationCascades, automationDeliveries, automationRuns } from "../../db/schema";
import type { AutomationRow } from "../../auth/access";
import { automationAccessQuery, checkAutomationAccess } from "../../auth/automationAccess";
import { conflict, notFound } from "../../errors";
import { newId } from "../../lib/ids";
import { read, type ServiceContext, type IdIssuer } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { CASCADE_DELIVERIES, CascadeBudgetExceeded, foreignCascade, reserveCascade } from "./cascade";
import { decodeIdCursor, encodeIdCursor } from "./crud";
import { enqueueAll } from "./messages";
import { deliveryDto, runDto, type RunRow } from "./serialize";
import { claimCondition, redeliveryClaim } from "./webhooks";

/**
 * A run started by a person: a manual run starts its own cascade at depth 1, like a run caused by a person's write;
 * a retry keeps its original's depth and cascade (docs/api-guide.md, automations).
 */
function newRunRow(
  a: Pick<AutomationRow, "id" | "projectId">,
  trigger: Record<string, unknown>,
  now: number,
  ids: IdIssuer,
  opts: { depth?: number; retryOf?: string | null; eventKey?: string | null; cascadeId?: string } = {},
): RunRow {
  const id = ids.beside(a.id);
  return {
    id,
    automationId: a.id,
    projectId: a.projectId,
    eventKey: opts.eventKey ?? null,
    trigger,
    depth: opts.depth ?? 1,
    cascadeId: opts.cascadeId ?? id,
    status: "queued",
    retryOf: opts.retryOf ?? null,
    startedAt: null,
    finishedAt: null,
    operations: 0,
    affectedRows: 0,
    externalWrites: 0,
    error: null,
    actions: [],
    deliveryIds: [],
    createdAt: now,
    updatedAt: now,
  };
}

/** Manual run: recorded as queued and handed to the Queue consumer (`POST /automation/{id}/run`). */
export async function runAutomationNow(ctx: ServiceContext, { id }: { id: string }) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { automation } = checkAutomationAccess(ctx.user, row, "run");
  if (!automation.enabled) throw conflict("The automation is disabled: enable it to run it");
  const run = newRunRow(automation, { type: "manual", userId: ctx.user._id }, ctx.now, ctx.ids);
  await ctx.db.batch([
    ctx.db.insert(automationRuns).values(run),
    ...(await keptAnswerUpdates(ctx, { payload: { data: runDto(run) } })),
  ]);
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "run", runId: run.id }]);
  return runDto(run);
}

const automationOfRun = (runId: string) => sql`(SELECT automation_id FROM automation_runs WHERE id = ${runId})`;
const automationOfDelivery = (deliveryId: string) =>
  sql`(SELECT automation_id FROM automation_deliveries WHERE id = ${deliveryId})`;

/** One D1 round trip: the run and its automation's access together; an unreadable run is as absent as a missing one. */
export async function getRun(ctx: ServiceContext, { runId }: { runId: string }) {
  const [[run], [access]] = await read(ctx, [
    ctx.db.select().from(automationRuns).where(eq(automationRuns.id, runId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfRun(runId)),
  ]);
  if (!run) throw notFound("Run");
  checkAutomationAccess(ctx.user, access, "read", "Run");
  return runDto(run);
}

/** `POST /automation/run/{runId}/retry`: the same trigger again as a new run carrying `retryOf`. */
export async function retryRun(ctx: ServiceContext, { runId }: { runId: string }) {
  const [[old], [access]] = await read(ctx, [
    ctx.db.select().from(automationRuns).where(eq(automationRuns.id, runId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfRun(runId)),
  ]);
  if (!old) throw notFound("Run");
  const { automation } = checkAutomationAccess(ctx.user, access, "run", "Run");
  if (!automation.enabled) throw conflict("The automation is disabled: enable it to retry its runs");
  // Bound to its cause: the retry spends what is left of the original run's cascade, at the original's depth.
  const run = newRunRow(automation, old.trigger, ctx.now, ctx.ids, {
    depth: Math.max(1, old.depth),
    retryOf: old.id,
    cascadeId: old.cascadeId ?? old.id,
  });
  await ctx.db.batch([
    ctx.db.insert(automationRuns).values(run),
    ...(await keptAnswerUpdates(ctx, { payload: { data: runDto(run) } })),
  ]);
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "run", runId: run.id }]);
  return runDto(run);
}

export interface PageQuery {
  limit: number;
  cursor?: string;
  status?: string;
}

/** A page of rows read with `limit + 1` (newest first): the extra row only says another page follows. */
function newestFirstPage<R extends { id: string }, D>(rows: R[], limit: number, dto: (row: R) => D) {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  return { data: page.map(dto), nextCursor: more ? encodeIdCursor(page[page.length - 1]!.id) : null };
}

/** Runs newest first, keyset-paged on the (time-sortable) id. */
export async function listRuns(ctx: ServiceContext, input: { automationId: string } & PageQuery) {
  const { automationId, ...q } = input;
  const before = q.cursor ? decodeIdCursor(q.cursor) : null;
  const [[access], rows] = await read(ctx, [
    automationAccessQuery(ctx.db, ctx.user.ref, automationId),
    ctx.db
      .select()
      .from(automationRuns)
      .where(
        and(
          eq(automationRuns.automationId, automationId),
          before ? lt(automationRuns.id, before) : undefined,
          q.status ? eq(automationRuns.status, q.status as RunRow["status"]) : undefined,
        ),
      )
      .orderBy(desc(automationRuns.id))
      .limit(q.limit + 1),
  ]);
  checkAutomationAccess(ctx.user, access, "read");
  return newestFirstPage(rows, q.limit, runDto);
}

export async function listDeliveries(ctx: ServiceContext, input: { automationId: string } & PageQuery) {
  const { automationId, ...q } = input;
  const before = q.cursor ? decodeIdCursor(q.cursor) : null;
  const [[access], rows] = await read(ctx, [
    automationAccessQuery(ctx.db, ctx.user.ref, automationId),
    ctx.db
      .select()
      .from(automationDeliveries)
      .where(
        and(
          eq(automationDeliveries.automationId, automationId),
          before ? lt(automationDeliveries.id, before) : undefined,
          q.status ? eq(automationDeliveries.status, q.status as "pending") : undefined,
        ),
      )
      .orderBy(desc(automationDeliveries.id))
      .limit(q.limit + 1),
  ]);
  const { canChange } = checkAutomationAccess(ctx.user, access, "read");
  return newestFirstPage(rows, q.limit, (d) => deliveryDto(d, { canChange }));
}

const SPENT =
  "The delivery's run has used its externalWriteBudget (or its cause's cascade its deliveries): nothing was sent";

/**
 * `POST /automation/delivery/{id}/redeliver`: a new attempt now, with the retry schedule started afresh. One attempt
 * at a time: the delivery is claimed here, before anything is queued or sent (a concurrent redelivery, or one
 * while an attempt is in flight, is 409), and the attempt counts against the run's `externalWriteBudget` and its
 * cascade's deliveries — claim and counts in one D1 transaction.
 */
// eslint-disable-next-line max-lines-per-function -- one claim of the delivery, its cascade charge and its attempt, in the order the crash-safety of §17 needs
export async function redeliver(ctx: ServiceContext, { deliveryId }: { deliveryId: string }) {
  const [[delivery], [access]] = await read(ctx, [
    ctx.db
      .select({
        delivery: automationDeliveries,
        cascadeId: sql<string | null>`COALESCE(${automationRuns.cascadeId}, ${automationRuns.id})`,
        projectId: automationRuns.projectId,
      })
      .from(automationDeliveries)
      .leftJoin(automationRuns, eq(automationRuns.id, automationDeliveries.runId))
      .where(eq(automationDeliveries.id, deliveryId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfDelivery(deliveryId)),
  ]);
  if (!delivery) throw notFound("Delivery");
  checkAutomationAccess(ctx.user, access, "change", "Delivery");
  // A cascade whose home is another shard database is charged there first (cascade.ts): the claim below finds no
  // cascade row in this one. A claim then refused (an attempt in flight) leaves that delivery booked: spent early, never passed.
  if (delivery.cascadeId && delivery.projectId && foreignCascade(delivery.cascadeId, delivery.projectId)) {
    try {
      await reserveCascade(ctx.env, delivery.cascadeId, delivery.projectId, "deliveries", 1);
    } catch (err) {
      if (err instanceof CascadeBudgetExceeded) throw conflict(SPENT);
      throw err;
    }
  }
  const token = newId();
  const d = automationDeliveries;
  const runOf = sql`(SELECT r.id FROM automation_runs r WHERE r.id = ${d.runId})`;
  const cascadeOf = sql`(SELECT COALESCE(r.cascade_id, r.id) FROM automation_runs r WHERE r.id = ${d.runId})`;
  const withinBudgets = sql`(SELECT r.external_writes FROM automation_runs r WHERE r.id = ${d.runId})
      < (SELECT json_extract(a.behavior, '$.externalWriteBudget') FROM automations a WHERE a.id = ${d.automationId})
    AND COALESCE((SELECT c.deliveries FROM automation_cascades c WHERE c.id = ${cascadeOf}), 0) < ${CASCADE_DELIVERIES}`;
  const claimedHere = sql`(SELECT x.run_id FROM automation_deliveries x WHERE x.id = ${deliveryId} AND x.claim_token = ${token})`;
  const claim = redeliveryClaim(ctx.now, token);
  // A keyed request's answer (the delivery as claimed) commits with the claim, kept only if this request claimed it:
  // a retry after a crash replays it instead of sending another attempt.
  const kept = await keptAnswerUpdates(ctx, {
    payload: { data: deliveryDto({ ...delivery.delivery, ...claim }) },
    when: sql`${claimedHere} IS NOT NULL`,
  });
  const [claimed] = await ctx.db.batch([
    ctx.db
      .update(d)
      .set(claim)
      .where(and(eq(d.id, deliveryId), claimCondition(ctx.now), withinBudgets, sql`${runOf} IS NOT NULL`))
      .returning(),
    ctx.db
      .update(automationRuns)
      .set({ externalWrites: sql`${automationRuns.externalWrites} + 1` })
      .where(sql`${automationRuns.id} = ${claimedHere}`),
    ctx.db
      .update(automationCascades)
      .set({ deliveries: sql`${automationCascades.deliveries} + 1` })
      .where(
        sql`${automationCascades.id} = (SELECT COALESCE(r.cascade_id, r.id) FROM automation_runs r WHERE r.id = ${claimedHere})`,
      ),
    ...kept,
  ]);
  const updated = claimed[0];
  if (!updated) {
    const [now] = await ctx.db.select({ claimedUntil: d.claimedUntil }).from(d).where(eq(d.id, deliveryId));
    if (now?.claimedUntil != null && now.claimedUntil >= ctx.now)
      throw conflict("An attempt of this delivery is in progress: try again when it has finished");
    throw conflict(SPENT);
  }
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "delivery", deliveryId, claimToken: token }]);
  return deliveryDto(updated);
}
