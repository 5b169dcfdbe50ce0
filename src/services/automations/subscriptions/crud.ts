/**
 * Webhook subscriptions' verbs (docs/api-guide.md › Webhook subscriptions): create (write access to the project or
 * table; the secret answered once), read, list across the caller's organizations, change, delete, rotate the secret.
 */
import { and, desc, eq, lt, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { changeLog, webhookSubscriptions } from "../../../db/schema";
import { checkProjectAccess, projectAccessStatement } from "../../../auth/access";
import { checkTableAccess, tableAccessStatement } from "../../../auth/tableAccess";
import { outsideResources } from "../../../auth/tokenLimits";
import { sealSecret } from "../../../lib/crypto";
import type { ExpectedVersion } from "../../../lib/etag";
import { nextUpdatedAt } from "../../../db/sql";
import { notFound, preconditionFailed } from "../../../errors";
import { assertExpectedVersion } from "../../preconditions";
import { keptAnswerUpdates } from "../../idempotency";
import { read, type ServiceContext } from "../../context";
import { readOnEveryShard } from "../../shardReads";
import { decodeIdCursor, encodeIdCursor, newWebhookSecret } from "../crud";
import { requireWebhookUrl } from "../ssrf";
import { foldQuery } from "../../changes/staged";
import {
  callerRoleOf,
  checkSubscriptionAccess,
  subscriptionAccessQuery,
  subscriptionDto,
  subscriptionEtag,
  subscriptionRepresentation,
  type SubscriptionRow,
} from "./model";
import {
  subscriptionCreatedAudit,
  subscriptionDeletedAudit,
  subscriptionSecretRotatedAudit,
  subscriptionUpdatedAudit,
} from "./audit";

const s = webhookSubscriptions;

export interface CreateSubscriptionInput {
  scope: { projectId: string } | { tableId: string };
  events: string[];
  columnIds?: string[] | null;
  url: string;
  description?: string;
}

/** The scope's project (and table) with write access checked, and the last entry of its database's change log. */
async function writableScope(ctx: ServiceContext, scope: CreateSubscriptionInput["scope"]) {
  const tableId = "tableId" in scope ? scope.tableId : null;
  const projectId = "projectId" in scope ? scope.projectId : null;
  const last = ctx.db
    .select({ seq: changeLog.seq, recordId: changeLog.recordId })
    .from(changeLog)
    .orderBy(desc(changeLog.seq), desc(changeLog.recordId))
    .limit(1);
  if (tableId) {
    const [, [row], [end]] = await read(ctx, [
      foldQuery(ctx.db),
      tableAccessStatement(ctx.db, ctx.user.ref, tableId),
      last,
    ]);
    const { table } = checkTableAccess(row, "write");
    return { projectId: table.projectId, workspaceId: table.workspaceId, tableId, end };
  }
  const [, [row], [end]] = await read(ctx, [
    foldQuery(ctx.db),
    projectAccessStatement(ctx.db, ctx.user.ref, projectId!),
    last,
  ]);
  const { project } = checkProjectAccess(row, "write");
  return { projectId: project.id, workspaceId: project.workspaceId, tableId: null, end };
}

/** `POST /webhook`: two D1 round trips (access with the log's end; the insert with its kept answer). */
export async function createSubscription(ctx: ServiceContext, input: CreateSubscriptionInput) {
  requireWebhookUrl(input.url, ctx.env, "url");
  const { projectId, workspaceId, tableId, end } = await writableScope(ctx, input.scope);
  const id = ctx.ids.beside(projectId);
  const secret = newWebhookSecret();
  const row: SubscriptionRow = {
    id,
    projectId,
    workspaceId,
    tableId,
    ownerId: ctx.user._id,
    url: input.url,
    description: input.description ?? "",
    events: input.events,
    columnIds: input.columnIds?.length ? input.columnIds : null,
    secret: await sealSecret(ctx.env.SIGNING_SECRET, secret, id),
    status: "active",
    disabledReason: null,
    consecutiveFailures: 0,
    // New subscriptions start at the end of the log: they receive what changes from now on.
    cursorSeq: end?.seq ?? -1,
    cursorRecordId: end?.recordId ?? "",
    pendingDeliveryId: null,
    isDeleted: false,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const dto = { ...subscriptionDto(row, ctx.now, { canChange: true }), secret };
  await ctx.db.batch([
    ctx.db.insert(s).values(row),
    subscriptionCreatedAudit(ctx, row),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto }, status: 201 })),
  ]);
  return dto;
}

/** `GET /webhook/{id}`: one round trip; the subscription as this caller sees it, with its ETag. */
export async function getSubscription(ctx: ServiceContext, { id }: { id: string }) {
  const [[row]] = await read(ctx, [subscriptionAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { sub, canChange } = checkSubscriptionAccess(ctx.user, row, "read");
  return { data: subscriptionDto(sub, ctx.now, { canChange }), etag: await subscriptionEtag(sub, { canChange }) };
}

/**
 * A conditional write's guard (If-Match): the subscription still as read — every member its representation shows
 * that others change (a PATCH moves `updatedAt` on; a delivery moves the cursor, the failures, the status).
 */
function unchangedSince(sub: SubscriptionRow, expected: ExpectedVersion | undefined): SQL | undefined {
  if (expected === undefined) return undefined;
  return and(
    eq(s.updatedAt, sub.updatedAt),
    eq(s.cursorSeq, sub.cursorSeq),
    eq(s.cursorRecordId, sub.cursorRecordId),
    eq(s.consecutiveFailures, sub.consecutiveFailures),
    eq(s.status, sub.status),
  );
}

/**
 * `GET /webhook/all`: the subscriptions in every workspace the caller has a role in, on every shard database at
 * once (one round trip of latency), newest first, keyset-paged on the id.
 */
export async function listSubscriptions(ctx: ServiceContext, input: { limit: number; cursor?: string }) {
  const before = input.cursor ? decodeIdCursor(input.cursor) : null;
  const perShard = await readOnEveryShard(ctx, (db) => [
    db
      .select({ sub: s, callerRole: callerRoleOf(ctx.user.ref) })
      .from(s)
      .where(
        and(
          eq(s.isDeleted, false),
          before ? lt(s.id, before) : undefined,
          sql`EXISTS (SELECT 1 FROM workspace_collaborators wc WHERE wc.workspace_id = "webhook_subscriptions"."workspace_id" AND wc.user_id = ${ctx.user.ref})`,
        ),
      )
      .orderBy(desc(s.id))
      .limit(input.limit + 1),
  ]);
  const rows = perShard
    .flatMap(([r]) => r)
    // What the caller may read (a workspace role; inside a limited token's resources), as GET /webhook/{id} decides.
    .filter((r) => r.callerRole !== null && !outsideResources(r.sub))
    .sort((a, b) => (a.sub.id < b.sub.id ? 1 : -1));
  const page = rows.slice(0, input.limit);
  return {
    data: page.map((r) => subscriptionDto(r.sub, ctx.now, checkSubscriptionAccess(ctx.user, r, "read"))),
    nextCursor: rows.length > input.limit ? encodeIdCursor(page.at(-1)!.sub.id) : null,
  };
}

export interface UpdateSubscriptionInput {
  id: string;
  events?: string[];
  columnIds?: string[] | null;
  url?: string;
  description?: string;
  status?: "active" | "disabled";
  /** If-Match: the versions (ETags of GET /webhook/{id}) the subscription must be at, else 412. */
  expected?: ExpectedVersion;
}

/**
 * `PATCH /webhook/{id}`: the members named, in one write; `status: "active"` re-enables with failures reset. With
 * If-Match, the write is conditional on the subscription as read (412 and nothing written when it moved on).
 */
export async function updateSubscription(ctx: ServiceContext, input: UpdateSubscriptionInput) {
  const { id, expected, ...patch } = input;
  if (patch.url !== undefined) requireWebhookUrl(patch.url, ctx.env, "url");
  const [[row]] = await read(ctx, [subscriptionAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { sub } = checkSubscriptionAccess(ctx.user, row, "change");
  await assertExpectedVersion(expected, () => subscriptionRepresentation(sub, { canChange: true }));
  const set: Partial<SubscriptionRow> = {};
  if (patch.events !== undefined) set.events = patch.events;
  if (patch.columnIds !== undefined) set.columnIds = patch.columnIds?.length ? patch.columnIds : null;
  if (patch.url !== undefined) set.url = patch.url;
  if (patch.description !== undefined) set.description = patch.description;
  if (patch.status === "active" && sub.status !== "active")
    Object.assign(set, { status: "active", disabledReason: null, consecutiveFailures: 0 });
  if (patch.status === "disabled" && sub.status !== "disabled")
    Object.assign(set, { status: "disabled", disabledReason: "Disabled by request" });
  const holds = and(eq(s.id, id), eq(s.isDeleted, false), unchangedSince(sub, expected))!;
  // The entry goes before the update, on the update's own condition: recorded exactly when the update is made.
  const write = ctx.db
    .update(s)
    .set({ ...set, updatedAt: nextUpdatedAt(s.updatedAt, ctx.now) })
    .where(holds)
    .returning();
  const statements: BatchItem<"sqlite">[] = [...subscriptionUpdatedAudit(ctx, sub, set, holds), write];
  const results = await ctx.db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  const [updated] = results.at(-1) as SubscriptionRow[];
  if (!updated) throw expected === undefined ? notFound("Webhook") : preconditionFailed();
  return {
    data: subscriptionDto(updated, ctx.now, { canChange: true }),
    etag: await subscriptionEtag(updated, { canChange: true }),
  };
}

/** `DELETE /webhook/{id}`: deliveries stop at once (a delivery in flight is not sent again); If-Match as PATCH's. */
export async function deleteSubscription(ctx: ServiceContext, input: { id: string; expected?: ExpectedVersion }) {
  const { id, expected } = input;
  const [[row]] = await read(ctx, [subscriptionAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { sub } = checkSubscriptionAccess(ctx.user, row, "change");
  await assertExpectedVersion(expected, () => subscriptionRepresentation(sub, { canChange: true }));
  const holds = and(eq(s.id, id), eq(s.isDeleted, false), unchangedSince(sub, expected))!;
  const [, deleted] = await ctx.db.batch([
    subscriptionDeletedAudit(ctx, sub, holds),
    ctx.db
      .update(s)
      .set({ isDeleted: true, updatedAt: nextUpdatedAt(s.updatedAt, ctx.now) })
      .where(holds)
      .returning({ id: s.id }),
  ]);
  if (!deleted.length) throw expected === undefined ? notFound("Webhook") : preconditionFailed();
  return { success: true as const };
}

/** `POST /webhook/{id}/rotate-secret`: a new secret, answered once; deliveries from now on are signed with it. */
export async function rotateSubscriptionSecret(ctx: ServiceContext, { id }: { id: string }) {
  const [[row]] = await read(ctx, [subscriptionAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { sub } = checkSubscriptionAccess(ctx.user, row, "change");
  const secret = newWebhookSecret();
  const dto = { secret };
  await ctx.db.batch([
    subscriptionSecretRotatedAudit(ctx, sub),
    ctx.db
      .update(s)
      .set({ secret: await sealSecret(ctx.env.SIGNING_SECRET, secret, id), updatedAt: ctx.now })
      .where(eq(s.id, id)),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}
