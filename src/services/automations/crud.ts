/**
 * Automation records (docs/api-guide.md › Automations, published portals, collaborative editing, E2): create, change, read, list, delete, secret rotation, manual runs and
 * retries, run and delivery listings, redelivery. Access through src/auth/automationAccess.ts (requireAutomation).
 */
import { assertIfMatch } from "../../lib/etag";
import { d1Of } from "../../db/d1";
import { and, desc, eq, gt, lt, sql } from "drizzle-orm";
import { automationCascades, automationDeliveries, automationEventTriggers, automationRuns, automations, type StoredAction, type StoredBehavior, type StoredTrigger } from "../../db/schema";
import {
  checkProjectAccess,
  projectAccessStatement,
  readableProjectIds,
  readableProjectsStatement,
  type AutomationRow,
} from "../../auth/access";
import { automationAccessQuery, checkAutomationAccess, requireAutomation } from "../../auth/automationAccess";
import { read } from "../context";
import { conflict, notFound, unprocessable, validation } from "../../errors";
import { ID_PATTERN, newId } from "../../lib/ids";
import { openSecret, randomBase62, sealSecret } from "../../lib/crypto";
import { encodeBase64, textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { keptAnswerUpdates } from "../idempotency";
import { BUDGETS, type CreateAutomationValue, type TriggerInputValue, type UpdateAutomationValue } from "../../schemas/automations";
import type { ServiceCtx } from "./context";
import { enqueueAll } from "./messages";
import { CLAIM_MS, claimCondition } from "./webhooks";
import { CASCADE_DELIVERIES } from "./cascade";
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
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
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
 * else with one query), then the checks of meaning (422): schedules, webhook URLs. docs/api-guide.md › Conventions: existence before meaning.
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
    version: 0,
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

/**
 * One D1 round trip: access and the page in one batch (the page is dropped unless the project is readable).
 * Creation order, keyset-paged on the (time-sortable) id: `nextCursor` while more follow.
 */
export async function listAutomations(ctx: ServiceCtx, projectId: string, q: { limit: number; cursor?: string } = { limit: 1000 }) {
  const after = q.cursor ? decodeIdCursor(q.cursor) : null;
  const [[access], rows] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ctx.db
      .select()
      .from(automations)
      .where(and(eq(automations.projectId, projectId), eq(automations.isDeleted, false), after ? gt(automations.id, after) : undefined))
      .orderBy(automations.id)
      .limit(q.limit + 1),
  ]);
  const { workspaceRole } = checkProjectAccess(access, "read");
  const admin = workspaceRole === "owner" || workspaceRole === "admin";
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const data = await Promise.all(page.map((a) => (admin || a.ownerId === ctx.user._id ? ownerView(ctx, a) : automationDto(a, { canChange: false }))));
  return { data, nextCursor: more ? encodeIdCursor(page[page.length - 1]!.id) : null };
}

/** Compare-and-set attempts of a PATCH before it answers 409 (each re-reads the automation). */
const PATCH_ATTEMPTS = 5;

/**
 * E2: members given replace the stored ones; `triggers` and `actions` are replaced whole. No lost updates
 * (docs/api-guide.md): only the members named (and what they decide: the schedule, the failure count) are
 * written, in one conditional UPDATE on the version read, together with the event-trigger rows in one D1
 * transaction. A concurrent PATCH that moved the version first makes this one read again and retry, so two
 * PATCHes of different members both take effect; `If-Match` is checked against each read (412 once it no longer
 * holds).
 */
export async function updateAutomation(ctx: ServiceCtx, id: string, input: UpdateAutomationValue, ifMatch?: string) {
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
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
    const set: Partial<AutomationRow> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.description !== undefined) set.description = input.description;
    if (input.prompt !== undefined) set.prompt = input.prompt;
    if (input.promptDoc !== undefined) set.promptDoc = input.promptDoc;
    if (input.icon !== undefined) set.icon = (input.icon as Record<string, unknown> | null) ?? null;
    if (input.scope !== undefined) set.scope = input.scope;
    if (input.triggers) set.triggers = triggers;
    if (input.actions) set.actions = actions;
    if (input.conditions !== undefined) set.conditions = (input.conditions as Record<string, unknown> | null) ?? null;
    if (input.references !== undefined) set.references = input.references;
    if (input.onMissingReference !== undefined) set.onMissingReference = input.onMissingReference;
    if (input.behavior !== undefined) set.behavior = normalizeBehavior(input.behavior, current.behavior);
    if (input.notify !== undefined) set.notify = { inApp: input.notify.inApp ?? current.notify.inApp, email: input.notify.email ?? current.notify.email };
    if (input.runFromButton !== undefined) set.runFromButton = input.runFromButton;
    const enabled = input.enabled ?? current.enabled;
    if (input.enabled !== undefined) set.enabled = enabled;
    if (enabled && !current.enabled) set.consecutiveFailures = 0;
    if (input.triggers !== undefined || enabled !== current.enabled) {
      set.nextRunAt = nextRunOnSave(triggers, enabled, ctx.now);
      set.claimToken = null;
    }
    const version = current.version + 1;
    const next: AutomationRow = { ...current, ...set, version, updatedAt: ctx.now };
    const d1 = d1Of(ctx.db);
    const update = ctx.db
      .update(automations)
      .set({ ...set, version, updatedAt: ctx.now })
      .where(and(eq(automations.id, id), eq(automations.version, current.version)))
      .returning({ id: automations.id })
      .toSQL();
    const statements = [d1.prepare(update.sql).bind(...update.params)];
    if (input.triggers) {
      // Only when this PATCH's write is the one that holds (the version it set, the triggers it wrote).
      const mine = `(SELECT version = ?2 AND triggers = ?3 FROM automations WHERE id = ?1)`;
      const rows = eventTriggerRows(next, triggers).map((r) => [r.automationId, r.position, r.projectId, r.event, r.tableId, r.columnId, r.documentIds]);
      statements.push(
        d1.prepare(`DELETE FROM automation_event_triggers WHERE automation_id = ?1 AND ${mine}`).bind(id, version, JSON.stringify(triggers)),
        d1
          .prepare(
            `INSERT INTO automation_event_triggers (automation_id, position, project_id, event, table_id, column_id, document_ids)
             SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6
             FROM json_each(?4) j WHERE ${mine}`,
          )
          .bind(id, version, JSON.stringify(triggers), JSON.stringify(rows)),
      );
    }
    const [written] = await d1.batch(statements);
    if (written!.results.length) return ownerView(ctx, next);
  }
  throw conflict("The automation kept changing while this change was applied: read it again and retry");
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

/**
 * A run started by a person: a manual run starts its own cascade at depth 1, like a run caused by a person's write;
 * a retry keeps its original's depth and cascade (docs/api-guide.md, automations).
 */
function newRunRow(a: Pick<AutomationRow, "id" | "projectId">, trigger: Record<string, unknown>, now: number, opts: { depth?: number; retryOf?: string | null; eventKey?: string | null; cascadeId?: string } = {}): RunRow {
  const id = newId();
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
export async function runAutomationNow(ctx: ServiceCtx, id: string) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { automation } = checkAutomationAccess(ctx.user, row, "run");
  if (!automation.enabled) throw conflict("The automation is disabled: enable it to run it");
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
  if (!automation.enabled) throw conflict("The automation is disabled: enable it to retry its runs");
  // Bound to its cause: the retry spends what is left of the original run's cascade, at the original's depth.
  const run = newRunRow(automation, old.trigger, ctx.now, { depth: Math.max(1, old.depth), retryOf: old.id, cascadeId: old.cascadeId ?? old.id });
  await ctx.db.insert(automationRuns).values(run);
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "run", runId: run.id }]);
  return runDto(run);
}

export function encodeIdCursor(id: string) {
  return textToBase64Url(id);
}

export function decodeIdCursor(cursor: string): string {
  const id = textFromBase64Url(cursor) ?? "";
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
  const { canChange } = checkAutomationAccess(ctx.user, access, "read");
  return newestFirstPage(rows, q.limit, (d) => deliveryDto(d, { canChange }));
}

/**
 * `POST /automation/delivery/{id}/redeliver`: a new attempt now, with the retry schedule started afresh. One attempt
 * at a time: the delivery is claimed here, before anything is queued or sent (a concurrent redelivery, or one
 * while an attempt is in flight, is 409), and the attempt counts against the run's `externalWriteBudget` and its
 * cascade's deliveries — claim and counts in one D1 transaction.
 */
export async function redeliver(ctx: ServiceCtx, deliveryId: string) {
  const [[delivery], [access]] = await read(ctx, [
    ctx.db.select({ id: automationDeliveries.id }).from(automationDeliveries).where(eq(automationDeliveries.id, deliveryId)),
    automationAccessQuery(ctx.db, ctx.user.ref, automationOfDelivery(deliveryId)),
  ]);
  if (!delivery) throw notFound("Delivery");
  checkAutomationAccess(ctx.user, access, "change", "Delivery");
  const token = newId();
  const d = automationDeliveries;
  const runOf = sql`(SELECT r.id FROM automation_runs r WHERE r.id = ${d.runId})`;
  const cascadeOf = sql`(SELECT COALESCE(r.cascade_id, r.id) FROM automation_runs r WHERE r.id = ${d.runId})`;
  const withinBudgets = sql`(SELECT r.external_writes FROM automation_runs r WHERE r.id = ${d.runId})
      < (SELECT json_extract(a.behavior, '$.externalWriteBudget') FROM automations a WHERE a.id = ${d.automationId})
    AND COALESCE((SELECT c.deliveries FROM automation_cascades c WHERE c.id = ${cascadeOf}), 0) < ${CASCADE_DELIVERIES}`;
  const claimedHere = sql`(SELECT x.run_id FROM automation_deliveries x WHERE x.id = ${deliveryId} AND x.claim_token = ${token})`;
  const [claimed] = await ctx.db.batch([
    ctx.db
      .update(d)
      .set({ status: "pending", retryIndex: 0, nextAttemptAt: ctx.now, claimToken: token, claimedUntil: ctx.now + CLAIM_MS, updatedAt: ctx.now })
      .where(and(eq(d.id, deliveryId), claimCondition(ctx.now), withinBudgets, sql`${runOf} IS NOT NULL`))
      .returning(),
    ctx.db.update(automationRuns).set({ externalWrites: sql`${automationRuns.externalWrites} + 1` }).where(sql`${automationRuns.id} = ${claimedHere}`),
    ctx.db
      .update(automationCascades)
      .set({ deliveries: sql`${automationCascades.deliveries} + 1` })
      .where(sql`${automationCascades.id} = (SELECT COALESCE(r.cascade_id, r.id) FROM automation_runs r WHERE r.id = ${claimedHere})`),
  ]);
  const updated = claimed[0];
  if (!updated) {
    const [now] = await ctx.db.select({ claimedUntil: d.claimedUntil }).from(d).where(eq(d.id, deliveryId));
    if (now?.claimedUntil != null && now.claimedUntil >= ctx.now) throw conflict("An attempt of this delivery is in progress: try again when it has finished");
    throw conflict("The delivery's run has used its externalWriteBudget (or its cause's cascade its deliveries): nothing was sent");
  }
  await enqueueAll(ctx.env.AUTOMATION_QUEUE, [{ kind: "delivery", deliveryId, claimToken: token }]);
  return deliveryDto(updated);
}
