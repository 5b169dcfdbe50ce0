import type { automationDeliveries, automationRuns, StoredAction, StoredTrigger } from "../../db/schema";
import type { AutomationRow } from "../../auth/access";

export function triggerDto(t: StoredTrigger) {
  const cron = (t.cron as string | null) ?? null;
  const runAt = (t.runAt as number | null) ?? null;
  const event = (t.event as string | null) ?? null;
  const type = cron !== null || runAt !== null ? "schedule" : event !== null ? "event" : "manual";
  const filter = (t.filter as Record<string, unknown> | null) ?? null;
  return {
    type,
    mode: runAt !== null || type === "manual" ? "once" : "recurring",
    event,
    provider: "internal" as const,
    cron,
    timezone: (t.timezone as string | null) ?? (cron !== null ? "UTC" : null),
    runAt,
    projectId: (t.projectId as string | null) ?? null,
    filter: filter
      ? {
          tableId: (filter.tableId as string | null) ?? null,
          columnId: (filter.columnId as string | null) ?? null,
          documentId: (filter.documentId as string | null) ?? null,
          documentIds: (filter.documentIds as string[] | null) ?? null,
        }
      : null,
    askForData: (t.askForData as boolean | undefined) ?? false,
    dataPrompt: (t.dataPrompt as string | undefined) ?? "",
    query: (t.query as string | undefined) ?? "",
  } as const;
}

/**
 * A returned Condition carries `kind` and `conjunction` (the specification marks them "returned only"): stored as
 * sent, so they are filled with what evaluation assumes when absent (`rowFilter`, `and`). Sent back, they mean
 * the same thing.
 */
function conditionDto(c: Record<string, unknown>) {
  return { ...c, kind: c.kind ?? "rowFilter", conjunction: c.conjunction ?? "and" };
}

/** What a reader who cannot change the automation sees of a webhook URL: its origin (paths and queries often carry secrets). */
export function webhookUrlForReader(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? "" : origin;
  } catch {
    return "";
  }
}

/**
 * A webhook's URL and header values may hold a receiver's credentials: only those who may change the automation
 * see them; other readers see the URL's origin and the header names.
 */
function actionDto(a: StoredAction, canChange: boolean) {
  let spec = a.spec;
  if (!canChange && spec.kind === "webhook") {
    spec = { ...spec, url: webhookUrlForReader(String(spec.url ?? "")) };
    if (spec.headers && typeof spec.headers === "object")
      spec.headers = Object.fromEntries(Object.keys(spec.headers as object).map((k) => [k, "********"]));
  }
  return {
    id: a.id,
    spec,
    continueOnError: a.continueOnError ?? false,
    ...(a.condition ? { condition: conditionDto(a.condition as Record<string, unknown>) } : {}),
  };
}

export function automationDto(a: AutomationRow, opts: { canChange: boolean }) {
  return {
    _id: a.id,
    publicId: a.publicId,
    projectId: a.projectId,
    workspaceId: a.workspaceId,
    ownerId: a.ownerId,
    createdBy: a.createdBy,
    name: a.name,
    scope: a.scope,
    description: a.description,
    prompt: a.prompt,
    promptDoc: a.promptDoc ?? null,
    icon: a.icon ?? null,
    triggers: a.triggers.map(triggerDto),
    actions: a.actions.map((x) => actionDto(x, opts.canChange)),
    conditions: a.conditions ? conditionDto(a.conditions) : null,
    references: a.references,
    onMissingReference: a.onMissingReference,
    behavior: a.behavior,
    notify: a.notify,
    enabled: a.enabled,
    runFromButton: a.runFromButton,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    consecutiveFailures: a.consecutiveFailures,
    lastRunAt: a.lastRunAt,
    nextRunAt: a.nextRunAt,
    isDeleted: a.isDeleted,
    ...(opts.canChange ? { webhookSecret: a.webhookSecret } : {}),
  };
}

export type RunRow = typeof automationRuns.$inferSelect;
export type DeliveryRow = typeof automationDeliveries.$inferSelect;

export interface ActionRecord {
  id: string;
  kind: string;
  status: "succeeded" | "failed" | "skipped" | "notRun";
  startedAt: number | null;
  finishedAt: number | null;
  operations: number;
  affectedRows: number;
  error: Record<string, unknown> | null;
}

export function runDto(r: RunRow) {
  return {
    _id: r.id,
    automationId: r.automationId,
    trigger: r.trigger as { type: string } & Record<string, unknown>,
    depth: r.depth,
    status: r.status,
    retryOf: r.retryOf,
    startedAt: r.startedAt,
    finishedAt: r.finishedAt,
    operations: r.operations,
    affectedRows: r.affectedRows,
    externalWrites: r.externalWrites,
    error: r.error ?? null,
    actions: r.actions as unknown as ActionRecord[],
    deliveryIds: r.deliveryIds,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  };
}

export function deliveryDto(d: DeliveryRow, opts: { canChange: boolean } = { canChange: true }) {
  return {
    _id: d.id,
    automationId: d.automationId,
    runId: d.runId,
    actionId: d.actionId,
    url: opts.canChange ? d.url : webhookUrlForReader(d.url),
    method: d.method,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.nextAttemptAt,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
