/** Request and response schemas of automations, runs and deliveries (specification E2, docs/api-guide.md › Automations, published portals, collaborative editing). */
import { z } from "@hono/zod-openapi";
import { ignored, jsonLength, maxJsonBytes, NameSchema } from "../openapi";
import { IdSchema } from "./ids";
import { FILTER_OPS } from "./tables";

export const EVENTS = [
  "row.created",
  "row.updated",
  "row.deleted",
  "document.created",
  "document.updated",
  "comment.created",
  "comment.updated",
  "comment.deleted",
  "comment.resolved",
  "comment.reopened",
] as const;
export type AutomationEvent = (typeof EVENTS)[number];

/** Budget defaults and bounds (docs/api-guide.md › Automations, published portals, collaborative editing); outside them is 400. */
export const BUDGETS = {
  maxDurationMs: { default: 30_000, min: 1_000, max: 900_000 },
  operationBudget: { default: 1_000, min: 1, max: 100_000 },
  maxAffectedRows: { default: 1_000, min: 0, max: 100_000 },
  externalWriteBudget: { default: 10, min: 0, max: 100 },
} as const;

const budget = (name: keyof typeof BUDGETS) => z.number().int().min(BUDGETS[name].min).max(BUDGETS[name].max);

export const BehaviorInput = z
  .strictObject({
    maxDurationMs: budget("maxDurationMs").optional(),
    operationBudget: budget("operationBudget").optional(),
    maxAffectedRows: budget("maxAffectedRows").optional(),
    externalWriteBudget: budget("externalWriteBudget").optional(),
    allowDocumentWrites: z.boolean().optional(),
  })
  .openapi("AutomationBehavior");

const MAX_CONDITION_DEPTH = 5;

export interface ConditionValue {
  kind?: "rowFilter";
  tableId?: string;
  conjunction?: "and" | "or";
  predicates?: { columnId: string; op: (typeof FILTER_OPS)[number]; value?: unknown }[];
  group?: ConditionValue | ConditionValue[];
}

const Predicate = z.looseObject({ columnId: IdSchema, op: z.enum(FILTER_OPS), value: z.unknown().optional() });

/** The recursive condition, checked by plain zod (kept out of the OpenAPI document, which shows `group` as an object). */
const ConditionInner: z.ZodType<ConditionValue> = z.lazy(() =>
  z.looseObject({
    kind: z.literal("rowFilter").optional(),
    tableId: IdSchema.optional(),
    conjunction: z.enum(["and", "or"]).optional(),
    predicates: z.array(Predicate).max(50).optional(),
    group: z.union([ConditionInner, z.array(ConditionInner).max(10)]).optional(),
  }),
) as z.ZodType<ConditionValue>;

function depthOf(c: ConditionValue | undefined, d = 1): number {
  if (!c?.group) return d;
  const groups = Array.isArray(c.group) ? c.group : [c.group];
  return Math.max(d, ...groups.map((g) => depthOf(g, d + 1)));
}

export const ConditionInput = z
  .unknown()
  .transform((value, ctx): ConditionValue | null => {
    if (value === null || value === undefined) return null;
    const parsed = ConditionInner.safeParse(value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({
          code: "custom",
          path: issue.path as PropertyKey[] as (string | number)[],
          message: issue.message,
        });
      return z.NEVER;
    }
    if (depthOf(parsed.data) > MAX_CONDITION_DEPTH) {
      ctx.addIssue({ code: "custom", message: `groups nest at most ${MAX_CONDITION_DEPTH} deep` });
      return z.NEVER;
    }
    // jsonLength: a value nested past what JSON.stringify can walk is too large too (400, not 500).
    if (jsonLength(value) > 32 * 1024) {
      ctx.addIssue({ code: "custom", message: "must be at most 32 KiB as JSON" });
      return z.NEVER;
    }
    return parsed.data;
  })
  .openapi({
    type: "object",
    description:
      '`{ kind?: "rowFilter", tableId?, conjunction?: "and"|"or" (default and), predicates?: [{ columnId, op, value? }], group?: Condition | Condition[] }`; ' +
      `ops: ${FILTER_OPS.join(", ")}; groups nest at most ${MAX_CONDITION_DEPTH} deep.`,
  });

const CellsInput = z.record(IdSchema, z.unknown()).refine(...maxJsonBytes(256 * 1024));

export const WEBHOOK_METHODS = ["POST", "PUT", "PATCH", "DELETE", "GET"] as const;

const ActionSpec = z.discriminatedUnion("kind", [
  z.looseObject({ kind: z.literal("row.create"), tableId: IdSchema, cells: CellsInput.optional() }),
  z.looseObject({ kind: z.literal("row.update"), tableId: IdSchema.optional(), set: CellsInput }),
  z.looseObject({ kind: z.literal("row.delete"), tableId: IdSchema.optional() }),
  z.looseObject({ kind: z.literal("formula.apply"), columnId: IdSchema }),
  z.looseObject({
    kind: z.literal("document.create"),
    projectId: IdSchema.optional(),
    parentId: IdSchema.nullable().optional(),
    name: NameSchema,
    type: z.enum(["FOLDER", "DOCUMENT"]).optional(),
  }),
  z.looseObject({
    kind: z.literal("notify"),
    title: z.string().min(1).max(500),
    body: z.string().max(5000).optional(),
  }),
  z.looseObject({
    kind: z.literal("webhook"),
    url: z.string().min(1).max(2048),
    method: z.enum(WEBHOOK_METHODS).optional(),
    headers: z
      .record(
        z
          .string()
          .min(1)
          .max(200)
          .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP header name"),
        z.string().max(4096),
      )
      .refine((h) => Object.keys(h).length <= 30, "at most 30 headers")
      .optional(),
    body: z
      .unknown()
      .optional()
      .refine(...maxJsonBytes(64 * 1024)),
  }),
]);
export type ActionSpecValue = z.infer<typeof ActionSpec>;

export const ActionInput = z
  .strictObject({
    id: IdSchema.optional(),
    spec: ActionSpec,
    continueOnError: z.boolean().optional(),
    condition: ConditionInput.optional(),
  })
  .openapi("AutomationActionInput");

const FilterInput = z.strictObject({
  tableId: IdSchema.nullable().optional(),
  columnId: IdSchema.nullable().optional(),
  documentId: IdSchema.nullable().optional(),
  documentIds: z.array(IdSchema).max(100).nullable().optional(),
});

export const TriggerInput = z
  .strictObject({
    cron: z.string().max(200).nullable().optional(),
    timezone: z.string().max(100).nullable().optional(),
    runAt: z.number().int().min(0).max(8.64e15).nullable().optional(),
    event: z.enum(EVENTS).nullable().optional(),
    projectId: IdSchema.nullable().optional(),
    filter: FilterInput.nullable().optional(),
    askForData: z.boolean().optional(),
    dataPrompt: z.string().max(10_000).optional(),
    query: z.string().max(10_000).optional(),
    ...ignored("type", "mode", "provider", "nextRunAt"),
  })
  .refine((t) => [t.cron, t.runAt, t.event].filter((v) => v !== null && v !== undefined).length <= 1, {
    message: "a trigger has at most one of cron, runAt and event",
  })
  .openapi("AutomationTriggerInput");
export type TriggerInputValue = z.infer<typeof TriggerInput>;

const NotifyInput = z.strictObject({ inApp: z.boolean().optional(), email: z.boolean().optional() });

const members = {
  workspaceId: IdSchema.optional(),
  name: NameSchema,
  description: z.string().max(10_000).optional(),
  prompt: z.string().max(100_000).optional(),
  promptDoc: z
    .unknown()
    .optional()
    .refine(...maxJsonBytes(256 * 1024)),
  icon: z
    .record(z.string(), z.unknown())
    .nullable()
    .optional()
    .refine(...maxJsonBytes(4 * 1024)),
  scope: z.strictObject({ projectIds: z.array(IdSchema).max(100) }).optional(),
  triggers: z.array(TriggerInput).max(20).optional(),
  conditions: ConditionInput.optional(),
  actions: z
    .array(ActionInput)
    .max(50)
    .superRefine((actions, ctx) => {
      const seen = new Set<string>();
      actions.forEach((a, i) => {
        if (a.id && seen.has(a.id))
          ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate action id ${a.id}` });
        if (a.id) seen.add(a.id);
      });
    })
    .optional(),
  references: z
    .array(z.record(z.string(), z.unknown()))
    .max(100)
    .optional()
    .refine(...maxJsonBytes(64 * 1024)),
  onMissingReference: z.string().max(50).optional(),
  behavior: BehaviorInput.optional(),
  notify: NotifyInput.optional(),
  enabled: z.boolean().optional(),
  runFromButton: z.boolean().optional(),
};

const readOnly = ignored(
  "_id",
  "publicId",
  "ownerId",
  "createdBy",
  "createdAt",
  "updatedAt",
  "consecutiveFailures",
  "lastRunAt",
  "nextRunAt",
  "webhookSecret",
  "isDeleted",
);

export const CreateAutomationInput = z
  .strictObject({ projectId: IdSchema, ...members, ...readOnly })
  .openapi("CreateAutomationInput");

/** E2: every member optional; a trigger's `event` is honoured (docs/api-guide.md › Automations, published portals, collaborative editing). */
export const UpdateAutomationInput = z
  .strictObject({
    projectId: IdSchema.optional(),
    ...members,
    name: NameSchema.optional(),
    ...readOnly,
  })
  .openapi("UpdateAutomationInput");

export type CreateAutomationValue = z.infer<typeof CreateAutomationInput>;
export type UpdateAutomationValue = z.infer<typeof UpdateAutomationInput>;

// ---- responses -------------------------------------------------------------------------------------------

const TriggerSchema = z
  .object({
    type: z.enum(["schedule", "event", "manual"]),
    mode: z.enum(["recurring", "once"]),
    event: z.string().nullable(),
    provider: z.literal("internal"),
    cron: z.string().nullable(),
    timezone: z.string().nullable(),
    runAt: z.number().nullable(),
    projectId: z.string().nullable(),
    filter: z
      .object({
        tableId: z.string().nullable(),
        columnId: z.string().nullable(),
        documentId: z.string().nullable(),
        documentIds: z.array(z.string()).nullable(),
      })
      .nullable(),
    askForData: z.boolean(),
    dataPrompt: z.string(),
    query: z.string(),
  })
  .openapi("AutomationTrigger");

// null when there is none: the schema says so (a `type: "object"` override here once hid the null from clients).
const ConditionSchema = z
  .record(z.string(), z.unknown())
  .nullable()
  .openapi({ description: "A rowFilter condition (see the request schema), or null" });

export const AutomationSchema = z
  .object({
    _id: z.string(),
    publicId: z.string(),
    projectId: z.string(),
    workspaceId: z.string(),
    ownerId: z.string(),
    createdBy: z.string(),
    name: z.string(),
    scope: z.object({ projectIds: z.array(z.string()) }),
    description: z.string(),
    prompt: z.string(),
    promptDoc: z.unknown(),
    icon: z.record(z.string(), z.unknown()).nullable(),
    triggers: z.array(TriggerSchema),
    actions: z.array(
      z.object({
        id: z.string(),
        spec: z.looseObject({ kind: z.string() }),
        continueOnError: z.boolean(),
        condition: ConditionSchema.optional(),
      }),
    ),
    conditions: ConditionSchema,
    references: z.array(z.record(z.string(), z.unknown())),
    onMissingReference: z.string(),
    behavior: z.object({
      maxDurationMs: z.number(),
      operationBudget: z.number(),
      maxAffectedRows: z.number(),
      allowDocumentWrites: z.boolean(),
      externalWriteBudget: z.number(),
    }),
    notify: z.object({ inApp: z.boolean(), email: z.boolean() }),
    enabled: z.boolean(),
    runFromButton: z.boolean(),
    createdAt: z.number(),
    updatedAt: z.number(),
    consecutiveFailures: z.number(),
    lastRunAt: z.number().nullable(),
    nextRunAt: z.number().nullable(),
    isDeleted: z.boolean(),
    webhookSecret: z
      .string()
      .optional()
      .openapi({ description: "Only for the owner and project admins: `whsec_<base64 of 32 bytes>`" }),
  })
  .openapi("Automation");

const ErrorInfo = z.record(z.string(), z.unknown()).nullable().openapi({
  description:
    'null, or `{ code, message, ... }`; a budget excess is `{ code: "BudgetExceeded", budget, limit, used }`',
});

export const RunSchema = z
  .object({
    _id: z.string(),
    automationId: z.string(),
    trigger: z.looseObject({ type: z.string() }),
    depth: z.number(),
    status: z.enum(["queued", "running", "succeeded", "failed", "skipped"]),
    retryOf: z.string().nullable(),
    startedAt: z.number().nullable(),
    finishedAt: z.number().nullable(),
    operations: z.number(),
    affectedRows: z.number(),
    externalWrites: z.number(),
    error: ErrorInfo,
    actions: z.array(
      z.object({
        id: z.string(),
        kind: z.string(),
        status: z.enum(["succeeded", "failed", "skipped", "notRun"]),
        startedAt: z.number().nullable(),
        finishedAt: z.number().nullable(),
        operations: z.number(),
        affectedRows: z.number(),
        error: ErrorInfo,
      }),
    ),
    deliveryIds: z.array(z.string()),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .openapi("AutomationRun");

export const DeliverySchema = z
  .object({
    _id: z.string(),
    automationId: z.string(),
    runId: z.string(),
    actionId: z.string(),
    url: z.string(),
    method: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.array(
      z.object({
        at: z.number(),
        durationMs: z.number(),
        httpStatus: z.number().optional(),
        error: z.string().optional(),
      }),
    ),
    nextAttemptAt: z.number().nullable(),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .openapi("WebhookDelivery");

export const RUN_STATUSES = ["queued", "running", "succeeded", "failed", "skipped"] as const;
export const DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;
