import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects, workspaces } from "./workspaces";

/** Stored shapes (validated by the routes' zod schemas; see src/services/automations/model.ts). */
export type StoredTrigger = Record<string, unknown>;
export type StoredAction = {
  id: string;
  spec: { kind: string } & Record<string, unknown>;
  continueOnError?: boolean;
  condition?: unknown;
};
export type StoredBehavior = {
  maxDurationMs: number;
  operationBudget: number;
  maxAffectedRows: number;
  externalWriteBudget: number;
  allowDocumentWrites: boolean;
};

/**
 * docs/api-guide.md › Automations, published portals, collaborative editing. `nextRunAt` is the next instant any schedule trigger fires (null: no schedule, disabled or done).
 * The scheduled handler claims due rows with one conditional UPDATE that moves `next_run_at` to a lease in the
 * future and stamps `claim_token`; `claimed_for` keeps the due instant the claim was for.
 */
export const automations = sqliteTable(
  "automations",
  {
    id: text("id").primaryKey(),
    publicId: text("public_id").notNull(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    prompt: text("prompt").notNull().default(""),
    promptDoc: text("prompt_doc", { mode: "json" }).$type<unknown>(),
    icon: text("icon", { mode: "json" }).$type<Record<string, unknown> | null>(),
    scope: text("scope", { mode: "json" }).$type<{ projectIds: string[] }>().notNull(),
    triggers: text("triggers", { mode: "json" }).$type<StoredTrigger[]>().notNull(),
    actions: text("actions", { mode: "json" }).$type<StoredAction[]>().notNull(),
    conditions: text("conditions", { mode: "json" }).$type<Record<string, unknown> | null>(),
    references: text("references", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
    onMissingReference: text("on_missing_reference").notNull().default("fail"),
    behavior: text("behavior", { mode: "json" }).$type<StoredBehavior>().notNull(),
    notify: text("notify", { mode: "json" }).$type<{ inApp: boolean; email: boolean }>().notNull(),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    runFromButton: integer("run_from_button", { mode: "boolean" }).notNull().default(false),
    /** `whsec_<base64 of 32 bytes>`; needed in clear to sign deliveries. */
    webhookSecret: text("webhook_secret").notNull(),
    consecutiveFailures: integer("consecutive_failures").notNull().default(0),
    lastRunAt: integer("last_run_at"),
    nextRunAt: integer("next_run_at"),
    claimedFor: integer("claimed_for"),
    claimToken: text("claim_token"),
    /** Compare-and-set version: a PATCH writes only the members it names, where the version is still the one it read. */
    version: integer("version").notNull().default(0),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("automations_project_idx").on(t.projectId, t.isDeleted, t.id),
    index("automations_due_idx").on(t.nextRunAt),
  ],
);

/**
 * One row per event trigger, so an event finds its automations through (project_id, event) without reading
 * every automation of the project. Rewritten whenever an automation's triggers change.
 */
export const automationEventTriggers = sqliteTable(
  "automation_event_triggers",
  {
    automationId: text("automation_id")
      .notNull()
      .references(() => automations.id),
    position: integer("position").notNull(),
    projectId: text("project_id").notNull(),
    event: text("event").notNull(),
    tableId: text("table_id"),
    columnId: text("column_id"),
    /** JSON array of document ids (filter.documentId and filter.documentIds together), or null. */
    documentIds: text("document_ids"),
  },
  (t) => [
    uniqueIndex("automation_event_triggers_pk").on(t.automationId, t.position),
    index("automation_event_triggers_lookup_idx").on(t.projectId, t.event),
  ],
);

/**
 * The event triggers that watch a project of another organization (logical shard) than their automation's, kept in
 * the watched project's shard database, where its events are looked up (docs/scaling.md "Triggers across
 * organizations"). Only a pointer: whether it fires is read from the automation's own `triggers`, in its database,
 * so a row left behind by a change or a delete never fires. `version` is the automation's version the row was written
 * for: a change deletes the rows of earlier versions once it holds. No foreign key (the automation is elsewhere).
 */
export const automationRemoteTriggers = sqliteTable(
  "automation_remote_triggers",
  {
    projectId: text("project_id").notNull(),
    event: text("event").notNull(),
    automationId: text("automation_id").notNull(),
    position: integer("position").notNull(),
    version: integer("version").notNull(),
  },
  (t) => [
    uniqueIndex("automation_remote_triggers_pk").on(t.projectId, t.event, t.automationId, t.position),
    index("automation_remote_triggers_automation_idx").on(t.automationId),
  ],
);

/**
 * Runs. `event_key` makes a run exactly-once per (automation, event): an event id for event runs, the due
 * instant for scheduled runs, null for manual runs and retries. Kept 90 days.
 */
export const automationRuns = sqliteTable(
  "automation_runs",
  {
    id: text("id").primaryKey(),
    automationId: text("automation_id")
      .notNull()
      .references(() => automations.id),
    projectId: text("project_id").notNull(),
    eventKey: text("event_key"),
    trigger: text("trigger", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    depth: integer("depth").notNull().default(0),
    /** The cascade (automation_cascades) this run belongs to: everything one cause sets off shares it. */
    cascadeId: text("cascade_id"),
    status: text("status", { enum: ["queued", "running", "succeeded", "failed", "skipped"] }).notNull(),
    retryOf: text("retry_of"),
    startedAt: integer("started_at"),
    finishedAt: integer("finished_at"),
    operations: integer("operations").notNull().default(0),
    affectedRows: integer("affected_rows").notNull().default(0),
    externalWrites: integer("external_writes").notNull().default(0),
    error: text("error", { mode: "json" }).$type<Record<string, unknown> | null>(),
    actions: text("actions", { mode: "json" }).$type<Record<string, unknown>[]>().notNull(),
    deliveryIds: text("delivery_ids", { mode: "json" }).$type<string[]>().notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("automation_runs_event_uq").on(t.automationId, t.eventKey),
    index("automation_runs_list_idx").on(t.automationId, t.id),
    index("automation_runs_created_idx").on(t.createdAt),
    index("automation_runs_status_idx").on(t.status, t.startedAt),
    index("automation_runs_cascade_idx").on(t.cascadeId, t.status),
  ],
);

export type DeliveryAttempt = { at: number; durationMs: number; httpStatus?: number; error?: string };

/** The webhook outbox: one row per webhook action of a run, sent (and retried) by the Queue consumer. Kept 90 days. */
export const automationDeliveries = sqliteTable(
  "automation_deliveries",
  {
    id: text("id").primaryKey(),
    automationId: text("automation_id")
      .notNull()
      .references(() => automations.id),
    runId: text("run_id").notNull(),
    actionId: text("action_id").notNull(),
    url: text("url").notNull(),
    method: text("method").notNull(),
    headers: text("headers", { mode: "json" }).$type<Record<string, string>>().notNull(),
    body: text("body").notNull(),
    status: text("status", { enum: ["pending", "delivered", "failed"] }).notNull(),
    attempts: text("attempts", { mode: "json" }).$type<DeliveryAttempt[]>().notNull(),
    /** Failed attempts since the delivery was (re)queued: the position in the retry schedule. */
    retryIndex: integer("retry_index").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    /** One attempt at a time: an attempt (or a redelivery) claims the delivery until `claimedUntil` before sending. */
    claimToken: text("claim_token"),
    claimedUntil: integer("claimed_until"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("automation_deliveries_list_idx").on(t.automationId, t.id),
    index("automation_deliveries_created_idx").on(t.createdAt),
  ],
);

/**
 * One row per cause (a person's write, a manual run, a retry's original cause, one scheduled firing): what every
 * run it set off has used of the cascade budget (docs/api-guide.md, automations). Created on first use; kept 90 days.
 * `lastGrant` is the cascade's pacing clock (ms, services/automations/cascade.ts CASCADE_RATE): when the writes
 * and deliveries its runs planned so far are paid off at the cascade's rate; each new run's start is scheduled on it.
 */
export const automationCascades = sqliteTable(
  "automation_cascades",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id").notNull(),
    writes: integer("writes").notNull().default(0),
    deliveries: integer("deliveries").notNull().default(0),
    runs: integer("runs").notNull().default(0),
    lastGrant: integer("last_grant").notNull().default(0),
    /** Writes and deliveries the runs created so far could spend (their actions), reserved when they are created. */
    plannedWrites: integer("planned_writes").notNull().default(0),
    plannedDeliveries: integer("planned_deliveries").notNull().default(0),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("automation_cascades_created_idx").on(t.createdAt)],
);

/** Automation runs started per project and UTC day, against the daily cap; `notified` once the owner was told. */
export const automationProjectDays = sqliteTable(
  "automation_project_days",
  {
    projectId: text("project_id").notNull(),
    day: text("day").notNull(),
    runs: integer("runs").notNull().default(0),
    notified: integer("notified", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [uniqueIndex("automation_project_days_pk").on(t.projectId, t.day)],
);

/**
 * How far the automations' event triggers have read a project's change log (services/automations/logTriggers.ts):
 * the last entry `(seq, record_id)` whose runs were started. A project has a row once its log was first read for
 * its triggers; it moves with the project's logical shard, as the log's entries keep their `seq`.
 */
export const automationLogCursors = sqliteTable("automation_log_cursors", {
  projectId: text("project_id").primaryKey(),
  cursorSeq: integer("cursor_seq").notNull(),
  cursorRecordId: text("cursor_record_id").notNull(),
  updatedAt: integer("updated_at").notNull(),
});
