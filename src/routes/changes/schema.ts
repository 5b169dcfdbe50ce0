import { z } from "@hono/zod-openapi";
import { IdSchema } from "../../schemas/ids";

const ChangeSchema = z.object({ before: z.unknown(), after: z.unknown(), derived: z.boolean().optional() });

export const ChangeEntrySchema = z
  .object({
    cursor: z.string().openapi({ description: "Continue the feed after this entry (opaque)" }),
    at: z.number().int().openapi({ description: "Commit time, milliseconds since the epoch" }),
    kind: z.string().openapi({ example: "row.updated" }),
    organizationId: z.string(),
    workspaceId: z.string(),
    projectId: z.string().nullable(),
    tableId: z.string().optional(),
    recordId: z.string(),
    actor: z.object({
      type: z.enum(["user", "automation", "portal", "system"]),
      userId: z.string().optional(),
      tokenId: z.string().optional(),
      runId: z.string().optional(),
    }),
    source: z.enum(["api", "automation", "room", "import", "restore"]),
    changes: z
      .record(z.string(), ChangeSchema)
      .optional()
      .openapi({ description: "By column id (or field): the value before and after; absent for a tombstone" }),
  })
  .openapi("ChangeEntry");

const cursor = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .openapi({ param: { name: "cursor", in: "query" } });
const scopeId = (name: string) =>
  IdSchema.optional().openapi({ param: { name, in: "query" }, example: "01JD5Y7X9Q0000000000000000" });

export const FeedQuerySchema = z.object({
  tableId: scopeId("tableId"),
  projectId: scopeId("projectId"),
  workspaceId: scopeId("workspaceId"),
  cursor,
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(1000)
    .default(100)
    .openapi({ param: { name: "limit", in: "query" } }),
});

export const HistoryQuerySchema = z.object({
  cursor,
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" } }),
});

export const FeedPageSchema = z
  .object({ data: z.array(ChangeEntrySchema), nextCursor: z.string() })
  .openapi("ChangeFeedPage");
export const HistoryPageSchema = z
  .object({ data: z.array(ChangeEntrySchema), nextCursor: z.string().nullable() })
  .openapi("HistoryPage");
