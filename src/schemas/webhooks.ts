import { z } from "@hono/zod-openapi";
import { ignored } from "../openapi";
import { IdSchema } from "./ids";

/** A change-log kind or a pattern of kinds: `row.updated`, `row.*`, `*`. */
const EventPattern = z
  .string()
  .max(64)
  .regex(/^(\*|[a-z]+\.(\*|[a-z_]+))$/, "a kind such as row.updated, a family such as row.*, or *");

const Events = z
  .array(EventPattern)
  .min(1)
  .max(50)
  .openapi({ example: ["row.*"] });
const ColumnIds = z.array(IdSchema).max(100).nullable();
const Url = z.string().min(1).max(2048).openapi({ example: "https://example.com/hooks/workspace" });
const Description = z.string().max(1000);

export const SubscriptionScopeSchema = z
  .union([z.strictObject({ projectId: IdSchema }), z.strictObject({ tableId: IdSchema })])
  .openapi("WebhookSubscriptionScope");

export const CreateSubscriptionInput = z
  .strictObject({
    scope: SubscriptionScopeSchema,
    events: Events,
    columnIds: ColumnIds.optional(),
    url: Url,
    description: Description.optional(),
  })
  .openapi("CreateWebhookSubscription");

const STATUSES = ["active", "disabled"] as const;

export const UpdateSubscriptionInput = z
  .strictObject({
    events: Events.optional(),
    columnIds: ColumnIds.optional(),
    url: Url.optional(),
    description: Description.optional(),
    status: z.enum(STATUSES).optional(),
    ...ignored(
      "_id",
      "scope",
      "projectId",
      "workspaceId",
      "tableId",
      "ownerId",
      "disabledReason",
      "consecutiveFailures",
      "cursor",
      "createdAt",
      "updatedAt",
    ),
  })
  .openapi("UpdateWebhookSubscription");

export const SubscriptionSchema = z
  .object({
    _id: z.string(),
    scope: SubscriptionScopeSchema,
    projectId: z.string(),
    workspaceId: z.string(),
    tableId: z.string().nullable(),
    ownerId: z.string(),
    events: z.array(z.string()),
    columnIds: z.array(z.string()).nullable(),
    url: z.string().openapi({ description: "The origin only, for readers who may not change the subscription" }),
    description: z.string(),
    status: z.enum(STATUSES),
    disabledReason: z.string().nullable(),
    consecutiveFailures: z.number().int(),
    cursor: z.string().openapi({ description: "The last change-log entry delivered (or skipped by the filters)" }),
    createdAt: z.number(),
    updatedAt: z.number(),
  })
  .openapi("WebhookSubscription");

export const CreatedSubscriptionSchema = SubscriptionSchema.extend({
  secret: z.string().openapi({ description: "`whsec_…`: shown once (POST /webhook/{id}/rotate-secret replaces it)" }),
}).openapi("CreatedWebhookSubscription");

export const SUBSCRIPTION_DELIVERY_STATUSES = ["pending", "delivered", "failed"] as const;

export const SubscriptionDeliverySchema = z
  .object({
    _id: z.string().openapi({ description: "Also the `webhook-id` header of every attempt" }),
    subscriptionId: z.string(),
    status: z.enum(SUBSCRIPTION_DELIVERY_STATUSES),
    entryCount: z.number().int(),
    cursor: z.string().openapi({ description: "The cursor of the batch's last entry (the body's `cursor`)" }),
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
  .openapi("WebhookSubscriptionDelivery");

export const ReplayInput = z
  .strictObject({
    cursor: z
      .string()
      .min(1)
      .max(200)
      .openapi({ description: "A cursor of GET /changes, of an entry, or of a delivery" }),
  })
  .openapi("ReplayWebhookSubscription");
