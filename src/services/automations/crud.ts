/**
 * Automation records (API.md §14, E2): create, change, read, list, delete, secret rotation, manual runs and
 * retries, run and delivery listings, redelivery. Access through src/auth/access.ts (requireAutomation).
 */
import { assertIfMatch } from "../../lib/etag";
import { and, desc, eq, lt, sql } from "drizzle-orm";
import { automationDeliveries, automationEventTriggers, automationRuns, automations, type StoredAction, type StoredBehavior, type StoredTrigger } from "../../db/schema";
import {
  automationAccessQuery,
  checkAutomationAccess,
  checkProjectAccess,
  projectAccessStatement,
  readableProjectIds,
  readableProjectsStatement,
  requireAutomation,
  type AutomationRow,
} from "../../auth/access";
import { read } from "../context";
import { notFound, unprocessable, validation } from "../../errors";
import { ID_PATTERN, newId } from "../../lib/ids";
import { openSecret, randomBase62, sealSecret } from "../../lib/crypto";
import { keptAnswerUpdates } from "../idempotency";
import { BUDGETS, type CreateAutomationValue, type TriggerInputValue, type UpdateAutomationValue } from "../../schemas/automations";
import type { ServiceCtx } from "./context";
import { enqueueAll } from "./messages";
import { requireWebhookUrl } from "./ssrf";
import { checkSchedule, nextRunOnSave } from "./schedule";
import { automationDto, deliveryDto, runDto, type RunRow } from "./serialize";

/**
 * The automation as its owner reads it: the webhook secret opened (it is sealed at rest, lib/crypto sealSecret).
 * One sealed under another SIGNING_SECRET reads as "" (its deliveries fail saying so) until it is rotated.
 */
async function withOpenSecret(ctx: ServiceCtx, a: AutomationRow): Promise<AutomationRow> {
  const webhookSecret = await openSecret(ctx.env.SIGNING_SECRET, a.webhookSecret, a.id).catch(() => "");
  return { ...a, webhookSecret };
}

/** The view of an automation for a caller who may change it (the one that carries the secret). */
async function ownerView(ctx: ServiceCtx, a: AutomationRow) {
  return automationDto(await withOpenSecret(ctx, a), { canChange: true });
}

export function newWebhookSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return `whsec_${btoa(bin)}`;
}

function normalizeTrigger(t: TriggerInputValue): StoredTrigger {
  const filter = t.filter
    ? {
        tableId: t.filter.tableId ?? null,
        columnId: t.filter.columnId ?? null,
        documentId: t.filter.documentId ?? null,
        documentIds: t.filter.documentIds ?? null,
      }
    : null;
  return {
    cron: t.cron ?? null,
    timezone: t.cron !== null && t.cron !== undefined ? (t.timezone ?? "UTC") : (t.timezone ?? null),
    runAt: t.runAt ?? null,
    event: t.event ?? null,
    projectId: t.projectId ?? null,
    filter,
    askForData: t.askForData ?? false,
    dataPrompt: t.dataPrompt ?? "",
    query: t.query ?? "",
  };
}

function normalizeBehavior(b: Partial<StoredBehavior> | undefined, base?: StoredBehavior): StoredBehavior {
  return {
    maxDurationMs: b?.maxDurationMs ?? base?.maxDurationMs ?? BUDGETS.maxDurationMs.default,
    operationBudget: b?.operationBudget ?? base?.operationBudget ?? BUDGETS.operationBudget.default,
    maxAffectedRows: b?.maxAffectedRows ?? base?.maxAffectedRows ?? BUDGETS.maxAffectedRows.default,
    externalWriteBudget: b?.externalWriteBudget ?? base?.externalWriteBudget ?? BUDGETS.externalWriteBudget.default,
    allowDocumentWrites: b?.allowDocumentWrites ?? base?.allowDocumentWrites ?? false,
  };
}

function normalizeActions(actions: NonNullable<CreateAutomationValue["actions"]>): StoredAction[] {
  const used = new Set(actions.map((a) => a.id).filter(Boolean));
  return actions.map((a, i) => {
    let id = a.id;
    if (!id) {
      id = `action-${i + 1}`;
      while (used.has(id)) id = `${id}-${randomBase62(4)}`;
      used.add(id);
    }
    return {
      id,
      spec: a.spec as StoredAction["spec"],
      continueOnError: a.continueOnError ?? false,
      ...(a.condition ? { condition: a.condition } : {}),
    };
  });
}

/** Projects other than the automation's own that its triggers watch (each must be readable by the caller). */
function otherTriggerProjects(projectId: string, triggers: StoredTrigger[]): string[] {
  return [...new Set(triggers.map((t) => t.projectId as string | null).filter((p): p is string => p !== null && p !== projectId))];
}

/**
 * Trigger projects the caller cannot read (404, from `readable` when the caller's first read already fetched them,
 * else with one query), then the checks of meaning (422): schedules, webhook URLs. API.md §1: existence before meaning.
 */
async function checkMeaning(ctx: ServiceCtx, projectId: string, triggers: StoredTrigger[], actions: StoredAction[], readable?: Set<string>) {
  const others = otherTriggerProjects(projectId, triggers);
  if (others.length) {
    const known = readable ?? (await readableProjectIds(ctx.db, ctx.user._id, others));
    if (others.some((p) => !known.has(p))) throw notFound("Project");
  }
  triggers.forEach((t, i) => {
    if (t.cron !== null || t.timezone !== null) checkSchedule({ cron: t.cron as string | null, timezone: t.timezone as string | null }, `triggers.${i}`);
  });
  actions.forEach((a, i) => {
    if (a.spec.kind === "webhook") requireWebhookUrl(String(a.spec.url), ctx.env, `actions.${i}.spec.url`);
  });
}

function eventTriggerRows(a: Pick<AutomationRow, "id" | "projectId">, triggers: StoredTrigger[]) {
  return triggers.flatMap((t, position) => {
    if (typeof t.event !== "string") return [];
    const f = (t.filter as Record<string, unknown> | null) ?? {};
    const docs = [f.documentId, ...((f.documentIds as string[] | null) ?? [])].filter((d): d is string => typeof d === "string");
    return [
      {
        automationId: a.id,
        position,
        projectId: (t.projectId as string | null) ?? a.projectId,
        event: t.event,
        tableId: (f.tableId as string | null) ?? null,
        columnId: (f.columnId as string | null) ?? null,
        documentIds: docs.length ? JSON.stringify(docs) : null,
      },
    ];
  });
}

/** Two D1 round trips: authentication, the project's access and the other trigger projects in one batch; the insert. */
export async function createAutomation(ctx: ServiceCtx, input: CreateAutomationValue) {
  const triggers = (input.triggers ?? []).map(normalizeTrigger);
  const actions = normalizeActions(input.actions ?? []);
  const others = otherTriggerProjects(input.projectId, triggers);
  const [[access], readable] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, input.projectId),
    // Nothing matches an empty list: the batch keeps its shape whatever the triggers.
    readableProjectsStatement(ctx.db, ctx.user.ref, others),
  ]);
  const { project } = checkProjectAccess(access, "write");
  if (input.workspaceId && input.workspaceId !== project.workspaceId) {
    throw validation("workspaceId is not the project's workspace", [{ path: "workspaceId", message: "not the project's workspace" }]);
  }
  await checkMeaning(ctx, project.id, triggers, actions, new Set(readable.map((r) => r.id)));
  const enabled = input.enabled ?? true;
  const id = newId();
  const webhookSecret = newWebhookSecret();
  const row: AutomationRow = {
    id,
    publicId: randomBase62(12),
    projectId: project.id,
    workspaceId: project.workspaceId,
    ownerId: ctx.user._id,
    createdBy: ctx.user._id,
    name: input.name,
    description: input.description ?? "",
    prompt: input.prompt ?? "",
    promptDoc: input.promptDoc ?? null,
    icon: (input.icon as Record<string, unknown> | null | undefined) ?? null,
    scope: input.scope ?? { projectIds: [project.id] },
    triggers,
    actions,
    conditions: (input.conditions as Record<string, unknown> | null | undefined) ?? null,
    references: input.references ?? [],
    onMissingReference: input.onMissingReference ?? "fail",
    behavior: normalizeBehavior(input.behavior),
    notify: { inApp: input.notify?.inApp ?? false, email: input.notify?.email ?? false },
    enabled,
    runFromButton: input.runFromButton ?? false,
    webhookSecret: await sealSecret(ctx.env.SIGNING_SECRET, webhookSecret, id),
    consecutiveFailures: 0,
    lastRunAt: null,
    nextRunAt: nextRunOnSave(triggers, enabled, ctx.now),
    claimedFor: null,
    claimToken: null,
    isDeleted: false,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  };
  const eventRows = eventTriggerRows(row, triggers);
  const dto = automationDto({ ...row, webhookSecret }, { canChange: true });
  // A keyed request's answer (sealed: it shows the webhook secret) commits with the automation (services/idempotency.ts).
  await ctx.db.batch([
    ctx.db.insert(automations).values(row),
    ...(eventRows.length ? [ctx.db.insert(automationEventTriggers).values(eventRows)] : []),
    ...(await keptAnswerUpdates(ctx, { data: dto })),
  ]);
  return dto;
}

/** One D1 round trip with the caller's authentication folded in. */
export async function getAutomation(ctx: ServiceCtx, id: string) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { automation, canChange } = checkAutomationAccess(ctx.user, row, "read");
  return canChange ? ownerView(ctx, automation) : automationDto(automation, { canChange });
}

/** One D1 round trip: access and the list in one batch (the list is dropped unless the project is readable). */
export async function listAutomations(ctx: ServiceCtx, projectId: string) {
  const [[access], rows] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ctx.db
      .select()
      .from(automations)
      .where(and(eq(automations.projectId, projectId), eq(automations.isDeleted, false)))
      .orderBy(automations.id)
      .limit(1000),
  ]);
  const { workspaceRole } = checkProjectAccess(access, "read");
  const admin = workspaceRole === "owner" || workspaceRole === "admin";
  return Promise.all(rows.map((a) => (admin || a.ownerId === ctx.user._id ? ownerView(ctx, a) : automationDto(a, { canChange: false }))));
}

/** E2: members given replace the stored ones; `triggers` and `actions` are replaced whole. */
export async function updateAutomation(ctx: ServiceCtx, id: string, input: UpdateAutomationValue, ifMatch?: string) {
  const { automation: current } = await requireAutomation(ctx.db, ctx.user, id, "change");
  // The representation GET /automation/{id} gives this caller (who can change it, so it carries the secret).
  await assertIfMatch(ifMatch, async () => ({ data: await ownerView(ctx, current) }));
  if (input.projectId !== undefined && input.projectId !== current.projectId) {
    throw unprocessable("An automation cannot move to another project", [{ path: "projectId", message: "not this automation's project" }]);
  }
  if (input.workspaceId !== undefined && input.workspaceId !== current.workspaceId) {
    throw unprocessable("An automation cannot move to another workspace", [{ path: "workspaceId", message: "not this automation's workspace" }]);
  }
  const triggers = input.triggers ? input.triggers.map(normalizeTrigger) : current.triggers;
  const actions = input.actions ? normalizeActions(input.actions) : current.actions;
  await checkMeaning(ctx, current.projectId, input.triggers ? triggers : [], input.actions ? actions : []);
  const enabled = input.enabled ?? current.enabled;
  const reenabled = enabled && !current.enabled;
  const scheduleChanged = input.triggers !== undefined || enabled !== current.enabled;
  const next: AutomationRow = {
    ...current,
    name: input.name ?? current.name,
    description: input.description ?? current.description,
    prompt: input.prompt ?? current.prompt,
    promptDoc: input.promptDoc !== undefined ? input.promptDoc : current.promptDoc,
    icon: input.icon !== undefined ? ((input.icon as Record<string, unknown> | null) ?? null) : current.icon,
    scope: input.scope ?? current.scope,
    triggers,
    actions,
    conditions: input.conditions !== undefined ? ((input.conditions as Record<string, unknown> | null) ?? null) : current.conditions,
    references: input.references ?? current.references,
    onMissingReference: input.onMissingReference ?? current.onMissingReference,
    behavior: normalizeBehavior(input.behavior, current.behavior),
    notify: { inApp: input.notify?.inApp ?? current.notify.inApp, email: input.notify?.email ?? current.notify.email },
    enabled,
    runFromButton: input.runFromButton ?? current.runFromButton,
    consecutiveFailures: reenabled ? 0 : current.consecutiveFailures,
    nextRunAt: scheduleChanged ? nextRunOnSave(triggers, enabled, ctx.now) : current.nextRunAt,
    claimToken: scheduleChanged ? null : current.claimToken,
    updatedAt: ctx.now,
  };
  const { id: _id, createdAt: _c, ...set } = next;
  const statements = [ctx.db.update(automations).set(set).where(eq(automations.id, id))] as const;
  if (input.triggers) {
    const rows = eventTriggerRows(next, triggers);
    await ctx.db.batch([
      ...statements,
      ctx.db.delete(automationEventTriggers).where(eq(automationEventTriggers.automationId, id)),
      ...(rows.length ? [ctx.db.insert(automationEventTriggers).values(rows)] : []),
    ]);
  } else {
    await ctx.db.batch(statements);
  }
  return ownerView(ctx, next);
}

export async function deleteAutomation(ctx: ServiceCtx, id: string, ifMatch?: string) {
  const { automation: current } = await requireAutomation(ctx.db, ctx.user, id, "change");
  await assertIfMatch(ifMatch, async () => ({ data: await ownerView(ctx, current) }));
  await ctx.db.batch([
    ctx.db.update(automations).set({ isDeleted: true, enabled: false, nextRunAt: null, updatedAt: ctx.now }).where(eq(automations.id, id)),
    ctx.db.delete(automationEventTriggers).where(eq(automationEventTriggers.automationId, id)),
  ]);
  return { success: true as const };
}

/** Two D1 round trips: authentication and access in one batch; the update. */
export async function rotateWebhookSecret(ctx: ServiceCtx, id: string) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  checkAutomationAccess(ctx.user, row, "change");
  const webhookSecret = newWebhookSecret();
  await ctx.db.update(automations).set({ webhookSecret: await sealSecret(ctx.env.SIGNING_SECRET, webhookSecret, id), updatedAt: ctx.now }).where(eq(automations.id, id));
  return { webhookSecret };
}

function newRunRow(a: Pick<AutomationRow, "id" | "projectId">, trigger: Record<string, unknown>, now: number, opts: { depth?: number; retryOf?: string | null; eventKey?: string | null } = {}): RunRow {
  return {
    id: newId(),
    automationId: a.id,
    projectId: a.projectId,
    eventKey: opts.eventKey ?? null,
    trigger,
    depth: opts.depth ?? 0,
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
export async function runAutomationNow(ctx: ServiceCtx, id: string) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { automation } = checkAutomationAccess(ctx.user, row, "run");
  const run = newRunRow(automation, { type: "manual", userId: ctx.user._id }, ctx.now);
  await ctx.db.insert(automationRuns).values(run);
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "run", runId: run.id }]);
  return runDto(run);
}

const automationOfRun = (runId: string) => sql`(SELECT automation_id FROM automation_runs WHERE id = ${runId})`;
const automationOfDelivery = (deliveryId: string) => sql`(SELECT automation_id FROM automation_deliveries WHERE id = ${deliveryId})`;

/** One D1 round trip: the run and its automation's access together; an unreadable run is as absent as a missing one. */
export async function getRun(ctx: ServiceCtx, runId: string) {
  const [[run], [access]] = await read(ctx, [
    ctx.db.select().from(automationRuns).where(eq(automationRuns.id, runId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfRun(runId)),
  ]);
  if (!run) throw notFound("Run");
  checkAutomationAccess(ctx.user, access, "read", "Run");
  return runDto(run);
}

/** `POST /automation/run/{runId}/retry`: the same trigger again as a new run carrying `retryOf`. */
export async function retryRun(ctx: ServiceCtx, runId: string) {
  const [[old], [access]] = await read(ctx, [
    ctx.db.select().from(automationRuns).where(eq(automationRuns.id, runId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfRun(runId)),
  ]);
  if (!old) throw notFound("Run");
  const { automation } = checkAutomationAccess(ctx.user, access, "run", "Run");
  const run = newRunRow(automation, old.trigger, ctx.now, { depth: old.depth, retryOf: old.id });
  await ctx.db.insert(automationRuns).values(run);
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "run", runId: run.id }]);
  return runDto(run);
}

export function encodeIdCursor(id: string) {
  return btoa(id).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeIdCursor(cursor: string): string {
  let id = "";
  try {
    id = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    // fall through
  }
  if (!ID_PATTERN.test(id)) throw validation("cursor is not a cursor this listing returned", [{ path: "cursor", message: "invalid cursor" }]);
  return id;
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
export async function listRuns(ctx: ServiceCtx, automationId: string, q: PageQuery) {
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

export async function listDeliveries(ctx: ServiceCtx, automationId: string, q: PageQuery) {
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
  checkAutomationAccess(ctx.user, access, "read");
  return newestFirstPage(rows, q.limit, deliveryDto);
}

/** `POST /automation/delivery/{id}/redeliver`: a new attempt now, with the retry schedule started afresh. */
export async function redeliver(ctx: ServiceCtx, deliveryId: string) {
  const [[delivery], [access]] = await read(ctx, [
    ctx.db.select({ id: automationDeliveries.id }).from(automationDeliveries).where(eq(automationDeliveries.id, deliveryId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfDelivery(deliveryId)),
  ]);
  if (!delivery) throw notFound("Delivery");
  checkAutomationAccess(ctx.user, access, "change", "Delivery");
  const [updated] = await ctx.db
    .update(automationDeliveries)
    .set({ status: "pending", retryIndex: 0, nextAttemptAt: ctx.now, updatedAt: ctx.now })
    .where(eq(automationDeliveries.id, deliveryId))
    .returning();
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "delivery", deliveryId }]);
  return deliveryDto(updated!);
}

