/**
 * An automation's definition as a create or a PATCH gives it (docs/api-guide.md › Automations, published portals,
 * collaborative editing, E2): triggers, actions and behavior normalized to what is stored, and checked — the
 * projects its triggers watch readable by the caller (404) before the schedules and webhook URLs make sense (422),
 * docs/api-guide.md › Conventions. Also which of its event triggers are kept beside it and which are pointers in
 * another organization's database (remoteTriggers.ts), and the members a PATCH writes. The records themselves:
 * crud.ts.
 */
import type { StoredAction, StoredBehavior, StoredTrigger } from "../../db/schema";
import { readableProjectIds, type AutomationRow } from "../../auth/access";
import type { ServiceContext } from "../context";
import { notFound } from "../../errors";
import { randomBase62 } from "../../lib/crypto";
import {
  BUDGETS,
  type CreateAutomationValue,
  type TriggerInputValue,
  type UpdateAutomationValue,
} from "../../schemas/automations";
import { requireWebhookUrl } from "./ssrf";
import { checkSchedule, nextRunOnSave } from "./schedule";
import { eventTriggerRows, writeRemoteTriggers } from "./remoteTriggers";
import { isRemoteProject } from "./shards";

export function normalizeTrigger(t: TriggerInputValue): StoredTrigger {
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

export function normalizeBehavior(b: Partial<StoredBehavior> | undefined, base?: StoredBehavior): StoredBehavior {
  return {
    maxDurationMs: b?.maxDurationMs ?? base?.maxDurationMs ?? BUDGETS.maxDurationMs.default,
    operationBudget: b?.operationBudget ?? base?.operationBudget ?? BUDGETS.operationBudget.default,
    maxAffectedRows: b?.maxAffectedRows ?? base?.maxAffectedRows ?? BUDGETS.maxAffectedRows.default,
    externalWriteBudget: b?.externalWriteBudget ?? base?.externalWriteBudget ?? BUDGETS.externalWriteBudget.default,
    allowDocumentWrites: b?.allowDocumentWrites ?? base?.allowDocumentWrites ?? false,
  };
}

export function normalizeActions(actions: NonNullable<CreateAutomationValue["actions"]>): StoredAction[] {
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
export function otherTriggerProjects(projectId: string, triggers: StoredTrigger[]): string[] {
  return [
    ...new Set(
      triggers.map((t) => t.projectId as string | null).filter((p): p is string => p !== null && p !== projectId),
    ),
  ];
}

/** The 422s of triggers and actions (schedules, webhook URLs), thrown. */
function checkMeaningOnly(ctx: ServiceContext, triggers: StoredTrigger[], actions: StoredAction[]) {
  triggers.forEach((t, i) => {
    if (t.cron !== null || t.timezone !== null)
      checkSchedule({ cron: t.cron as string | null, timezone: t.timezone as string | null }, `triggers.${i}`);
  });
  actions.forEach((a, i) => {
    if (a.spec.kind === "webhook") requireWebhookUrl(String(a.spec.url), ctx.env, `actions.${i}.spec.url`);
  });
}

/**
 * Trigger projects the caller cannot read (404), then the checks of meaning (422); docs/api-guide.md › Conventions:
 * existence before meaning. Projects of the automation's own logical shard are checked in its database (from
 * `readable` when the caller's first read already fetched them, else with one query); those of another (another
 * organization's) in theirs, by writing their event triggers' pointers there (remoteTriggers.ts) — only once the
 * checks of meaning hold (a request refused for meaning only reads there, to tell 404 from 422). Both checks run at
 * once, so a request refused for a project of its own shard may leave pointers in another's: a pointer the
 * automation does not name never fires. `automation` is the automation's id and the version the pointers are for.
 */
export async function checkMeaning(
  ctx: ServiceContext,
  automation: { id: string; projectId: string; version: number },
  triggers: StoredTrigger[],
  actions: StoredAction[],
  readable?: Set<string>,
) {
  const others = otherTriggerProjects(automation.projectId, triggers);
  const local = others.filter((p) => !isRemoteProject(automation.projectId, p));
  const remote = others.filter((p) => isRemoteProject(automation.projectId, p));
  const pointers = eventTriggerRows(automation, triggers)
    .filter((r) => isRemoteProject(automation.projectId, r.projectId))
    .map((r) => ({ projectId: r.projectId, event: r.event, automationId: r.automationId, position: r.position }));
  const pointed = new Set(pointers.map((p) => p.projectId));
  let meaning: unknown = null;
  try {
    checkMeaningOnly(ctx, triggers, actions);
  } catch (err) {
    meaning = err;
  }
  const localCheck = async () => {
    if (!local.length) return;
    const known = readable ?? (await readableProjectIds(ctx.db, ctx.user._id, local));
    if (local.some((p) => !known.has(p))) throw notFound("Project");
  };
  // Refused for meaning: the remote projects are only read. Else the pointers' write checks their projects, and
  // remote projects of other triggers (a schedule's) are read.
  const remoteCheck = async () => {
    const readOnly = meaning ? remote : remote.filter((p) => !pointed.has(p));
    await Promise.all([
      meaning ? Promise.resolve() : writeRemoteTriggers(ctx, pointers, automation.version),
      readableEverywhere(ctx, readOnly),
    ]);
  };
  await Promise.all([localCheck(), remoteCheck()]);
  if (meaning) throw meaning;
}

/** 404 unless the caller can read every project of `ids`, each asked in its own shard database (all at once). */
async function readableEverywhere(ctx: ServiceContext, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  const found = await Promise.all(
    ctx.byShard(new Set(ids), (p) => p).map(([there, list]) => readableProjectIds(there.db, ctx.user._id, list)),
  );
  const known = new Set(found.flatMap((s) => [...s]));
  if (ids.some((p) => !known.has(p))) throw notFound("Project");
}

/** The automation's event-trigger rows kept beside it: those watching a project of its own logical shard (the others are pointers). */
export function localEventTriggerRows(a: Pick<AutomationRow, "id" | "projectId">, triggers: StoredTrigger[]) {
  return eventTriggerRows(a, triggers).filter((r) => !isRemoteProject(a.projectId, r.projectId));
}

/** The projects of another logical shard that `triggers` watch (where their pointers are). */
export function remoteTriggerProjects(projectId: string, triggers: StoredTrigger[]): string[] {
  return otherTriggerProjects(projectId, triggers).filter((p) => isRemoteProject(projectId, p));
}

/** The members a PATCH writes: those named, and what they decide (the schedule, the failure count). */
export function patchedMembers(
  ctx: ServiceContext,
  input: UpdateAutomationValue,
  current: AutomationRow,
  triggers: StoredTrigger[],
  actions: StoredAction[],
): Partial<AutomationRow> {
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
  if (input.notify !== undefined)
    set.notify = {
      inApp: input.notify.inApp ?? current.notify.inApp,
      email: input.notify.email ?? current.notify.email,
    };
  if (input.runFromButton !== undefined) set.runFromButton = input.runFromButton;
  const enabled = input.enabled ?? current.enabled;
  if (input.enabled !== undefined) set.enabled = enabled;
  if (enabled && !current.enabled) set.consecutiveFailures = 0;
  if (input.triggers !== undefined || enabled !== current.enabled) {
    set.nextRunAt = nextRunOnSave(triggers, enabled, ctx.now);
    set.claimToken = null;
  }
  return set;
}
