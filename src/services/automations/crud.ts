/**
 * Automation records (docs/api-guide.md › Automations, published portals, collaborative editing, E2): create,
 * change, read, list, delete, secret rotation. What a create or a PATCH gives is normalized and checked in
 * automationInput.ts. Their runs and deliveries: runs.ts. Access through src/auth/automationAccess.ts
 * (requireAutomation).
 */
import type { ExpectedVersion } from "../../lib/etag";
import { assertExpectedVersion } from "../preconditions";
import { d1Of, statement } from "../../db/d1";
import { and, eq, gt } from "drizzle-orm";
import { automationEventTriggers, automations, type StoredAction, type StoredTrigger } from "../../db/schema";
import {
  checkProjectAccess,
  projectAccessStatement,
  readableProjectsStatement,
  type AutomationRow,
} from "../../auth/access";
import { automationAccessQuery, checkAutomationAccess, requireAutomation } from "../../auth/automationAccess";
import { read } from "../context";
import { conflict, unprocessable, validation } from "../../errors";
import { ID_PATTERN } from "../../lib/ids";
import { openSecret, randomBase62, sealSecret } from "../../lib/crypto";
import { encodeBase64, textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { keptAnswerUpdates } from "../idempotency";
import type { CreateAutomationValue, UpdateAutomationValue } from "../../schemas/automations";
import type { ServiceContext } from "../context";
import { replaceEventTriggersStatements } from "./queries";
import { nextRunOnSave } from "./schedule";
import { automationDto } from "./serialize";
import { dropRemoteTriggers } from "./remoteTriggers";
import { createdAudit, deletedAudit, updatedAudit } from "./audit";
import { isRemoteProject } from "./shards";
import {
  checkMeaning,
  localEventTriggerRows,
  normalizeActions,
  normalizeBehavior,
  normalizeTrigger,
  otherTriggerProjects,
  patchedMembers,
  remoteTriggerProjects,
} from "./automationInput";

/**
 * The automation as its owner reads it: the webhook secret opened (it is sealed at rest, lib/crypto sealSecret).
 * One sealed under another SIGNING_SECRET reads as "" (its deliveries fail saying so) until it is rotated.
 */
async function withOpenSecret(ctx: ServiceContext, a: AutomationRow): Promise<AutomationRow> {
  const webhookSecret = await openSecret(ctx.env.SIGNING_SECRET, a.webhookSecret, a.id).catch(() => "");
  return { ...a, webhookSecret };
}

/** The view of an automation for a caller who may change it (the one that carries the secret). */
async function ownerView(ctx: ServiceContext, a: AutomationRow) {
  return automationDto(await withOpenSecret(ctx, a), { canChange: true });
}

export function newWebhookSecret(): string {
  return `whsec_${encodeBase64(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The stored record of a new automation in `project`, its webhook secret sealed (lib/crypto sealSecret). */
async function newAutomationRow(
  ctx: ServiceContext,
  input: CreateAutomationValue,
  project: { id: string; workspaceId: string },
  fields: { id: string; triggers: StoredTrigger[]; actions: StoredAction[]; webhookSecret: string },
): Promise<AutomationRow> {
  const { id, triggers, actions } = fields;
  const enabled = input.enabled ?? true;
  return {
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
    webhookSecret: await sealSecret(ctx.env.SIGNING_SECRET, fields.webhookSecret, id),
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
}

/**
 * Two D1 round trips: authentication, the project's access and the other trigger projects of its shard in one batch;
 * the insert. Three when a trigger watches another organization's project: its pointer is written in between.
 */
export async function createAutomation(ctx: ServiceContext, input: CreateAutomationValue) {
  const triggers = (input.triggers ?? []).map(normalizeTrigger);
  const actions = normalizeActions(input.actions ?? []);
  const others = otherTriggerProjects(input.projectId, triggers).filter((p) => !isRemoteProject(input.projectId, p));
  const [[access], readable] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, input.projectId),
    // Nothing matches an empty list: the batch keeps its shape whatever the triggers.
    readableProjectsStatement(ctx.db, ctx.user.ref, others),
  ]);
  const { project } = checkProjectAccess(access, "write");
  if (input.workspaceId && input.workspaceId !== project.workspaceId) {
    throw validation("workspaceId is not the project's workspace", [
      { path: "workspaceId", message: "not the project's workspace" },
    ]);
  }
  const id = ctx.ids.beside(project.id);
  await checkMeaning(
    ctx,
    { id, projectId: project.id, version: 0 },
    triggers,
    actions,
    new Set(readable.map((r) => r.id)),
  );
  const webhookSecret = newWebhookSecret();
  const row = await newAutomationRow(ctx, input, project, { id, triggers, actions, webhookSecret });
  const eventRows = localEventTriggerRows(row, triggers);
  const dto = automationDto({ ...row, webhookSecret }, { canChange: true });
  // A keyed request's answer (sealed: it shows the webhook secret) commits with the automation (services/idempotency.ts).
  await ctx.db.batch([
    ctx.db.insert(automations).values(row),
    createdAudit(ctx, row),
    ...(eventRows.length ? [ctx.db.insert(automationEventTriggers).values(eventRows)] : []),
    ...(await keptAnswerUpdates(ctx, { payload: { data: dto } })),
  ]);
  return dto;
}

/** One D1 round trip with the caller's authentication folded in. */
export async function getAutomation(ctx: ServiceContext, { id }: { id: string }) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  const { automation, canChange } = checkAutomationAccess(ctx.user, row, "read");
  return canChange ? ownerView(ctx, automation) : automationDto(automation, { canChange });
}

/**
 * One D1 round trip: access and the page in one batch (the page is dropped unless the project is readable).
 * Creation order, keyset-paged on the (time-sortable) id: `nextCursor` while more follow.
 */
export async function listAutomations(
  ctx: ServiceContext,
  input: { projectId: string; limit?: number; cursor?: string },
) {
  const { projectId } = input;
  const q = { limit: input.limit ?? 1000, cursor: input.cursor };
  const after = q.cursor ? decodeIdCursor(q.cursor) : null;
  const [[access], rows] = await read(ctx, [
    projectAccessStatement(ctx.db, ctx.user.ref, projectId),
    ctx.db
      .select()
      .from(automations)
      .where(
        and(
          eq(automations.projectId, projectId),
          eq(automations.isDeleted, false),
          after ? gt(automations.id, after) : undefined,
        ),
      )
      .orderBy(automations.id)
      .limit(q.limit + 1),
  ]);
  const { workspaceRole } = checkProjectAccess(access, "read");
  const admin = workspaceRole === "owner" || workspaceRole === "admin";
  const more = rows.length > q.limit;
  const page = more ? rows.slice(0, q.limit) : rows;
  const data = await Promise.all(
    page.map((a) => (admin || a.ownerId === ctx.user._id ? ownerView(ctx, a) : automationDto(a, { canChange: false }))),
  );
  return { data, nextCursor: more ? encodeIdCursor(page[page.length - 1]!.id) : null };
}

/**
 * The PATCH's conditional UPDATE on the version read and, with new triggers, the event-trigger rows — written only
 * when that UPDATE is the one that holds (the version it set, the triggers it wrote).
 */
function patchStatements(
  ctx: ServiceContext,
  d1: D1Database,
  current: AutomationRow,
  set: Partial<AutomationRow>,
  triggers: StoredTrigger[] | null,
): D1PreparedStatement[] {
  const id = current.id;
  const version = current.version + 1;
  const update = ctx.db
    .update(automations)
    .set({ ...set, version, updatedAt: ctx.now })
    .where(and(eq(automations.id, id), eq(automations.version, current.version)))
    .returning({ id: automations.id })
    .toSQL();
  const statements = [statement(d1, update.sql, ...update.params)];
  if (!triggers) return statements;
  const rows = localEventTriggerRows({ ...current, ...set }, triggers).map((r) => [
    r.automationId,
    r.position,
    r.projectId,
    r.event,
    r.tableId,
    r.columnId,
    r.documentIds,
  ]);
  statements.push(...replaceEventTriggersStatements(d1, { id, version, triggers, rows }));
  return statements;
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
export async function updateAutomation(
  ctx: ServiceContext,
  {
    automationId: id,
    patch: input,
    expected,
  }: { automationId: string; patch: UpdateAutomationValue; expected?: ExpectedVersion },
) {
  for (let attempt = 0; attempt < PATCH_ATTEMPTS; attempt++) {
    const { automation: current } = await requireAutomation(ctx.db, ctx.user, id, "change");
    // The representation GET /automation/{id} gives this caller (who can change it, so it carries the secret).
    await assertExpectedVersion(expected, async () => ({ data: await ownerView(ctx, current) }));
    if (input.projectId !== undefined && input.projectId !== current.projectId) {
      throw unprocessable("An automation cannot move to another project", [
        { path: "projectId", message: "not this automation's project" },
      ]);
    }
    if (input.workspaceId !== undefined && input.workspaceId !== current.workspaceId) {
      throw unprocessable("An automation cannot move to another workspace", [
        { path: "workspaceId", message: "not this automation's workspace" },
      ]);
    }
    const triggers = input.triggers ? input.triggers.map(normalizeTrigger) : current.triggers;
    const actions = input.actions ? normalizeActions(input.actions) : current.actions;
    const version = current.version + 1;
    await checkMeaning(
      ctx,
      { id, projectId: current.projectId, version },
      input.triggers ? triggers : [],
      input.actions ? actions : [],
    );
    const set = patchedMembers(ctx, input, current, triggers, actions);
    const next: AutomationRow = { ...current, ...set, version, updatedAt: ctx.now };
    const d1 = d1Of(ctx.db);
    const statements = patchStatements(ctx, d1, current, set, input.triggers ? triggers : null);
    for (const q of updatedAudit(ctx, current, next, Object.keys(input))) {
      const { sql: text, params } = q.toSQL();
      statements.push(statement(d1, text, ...params));
    }
    const [written] = await d1.batch(statements);
    if (written!.results.length) {
      // The pointers of the triggers replaced (and any of an earlier version) are tidied after the response.
      if (input.triggers)
        dropRemoteTriggers(
          ctx,
          id,
          [
            ...remoteTriggerProjects(current.projectId, current.triggers),
            ...remoteTriggerProjects(current.projectId, triggers),
          ],
          version,
        );
      return ownerView(ctx, next);
    }
  }
  throw conflict("The automation kept changing while this change was applied: read it again and retry");
}

export async function deleteAutomation(
  ctx: ServiceContext,
  { automationId: id, expected }: { automationId: string; expected?: ExpectedVersion },
) {
  const { automation: current } = await requireAutomation(ctx.db, ctx.user, id, "change");
  await assertExpectedVersion(expected, async () => ({ data: await ownerView(ctx, current) }));
  await ctx.db.batch([
    deletedAudit(ctx, current),
    ctx.db
      .update(automations)
      .set({ isDeleted: true, enabled: false, nextRunAt: null, updatedAt: ctx.now })
      .where(eq(automations.id, id)),
    ctx.db.delete(automationEventTriggers).where(eq(automationEventTriggers.automationId, id)),
  ]);
  dropRemoteTriggers(ctx, id, remoteTriggerProjects(current.projectId, current.triggers));
  return { success: true as const };
}

/** Two D1 round trips: authentication and access in one batch; the update. */
export async function rotateWebhookSecret(ctx: ServiceContext, { id }: { id: string }) {
  const [[row]] = await read(ctx, [automationAccessQuery(ctx.db, ctx.user.ref, id)]);
  checkAutomationAccess(ctx.user, row, "change");
  const webhookSecret = newWebhookSecret();
  // A keyed request's answer (sealed, as kept answers are) commits with the new secret: a retry after a crash
  // replays it instead of rotating again and leaving the caller without the secret in force.
  await ctx.db.batch([
    ctx.db
      .update(automations)
      .set({ webhookSecret: await sealSecret(ctx.env.SIGNING_SECRET, webhookSecret, id), updatedAt: ctx.now })
      .where(eq(automations.id, id)),
    ...(await keptAnswerUpdates(ctx, { payload: { data: { webhookSecret } } })),
  ]);
  return { webhookSecret };
}

export function encodeIdCursor(id: string) {
  return textToBase64Url(id);
}

export function decodeIdCursor(cursor: string): string {
  const id = textFromBase64Url(cursor) ?? "";
  if (!ID_PATTERN.test(id))
    throw validation("cursor is not a cursor this listing returned", [{ path: "cursor", message: "invalid cursor" }]);
  return id;
}
