import { z } from "@hono/zod-openapi";
import { IdSchema } from "../../schemas/ids";
import { pathId } from "../../openapi";

const ChangeSchema = z.object({ before: z.unknown(), after: z.unknown(), derived: z.boolean().optional() });

export const AuditEntrySchema = z
  .object({
    cursor: z.string().openapi({ description: "Continue after this entry (opaque)" }),
    at: z.number().int().openapi({ description: "When, milliseconds since the epoch" }),
    kind: z.string().openapi({ example: "member.added" }),
    organizationId: z.string(),
    workspaceId: z.string().nullable(),
    projectId: z.string().nullable(),
    tableId: z.string().optional(),
    recordId: z.string().openapi({ description: "What the entry is about: a member's user id, a token, a record…" }),
    actor: z.object({
      type: z.enum(["user", "automation", "portal", "system"]),
      userId: z.string().optional(),
      tokenId: z.string().optional(),
      runId: z.string().optional(),
    }),
    source: z
      .enum(["api", "automation", "room", "import", "restore"])
      .optional()
      .openapi({ description: "A change-log entry's source; absent on the audit log's own entries" }),
    clientAddress: z
      .string()
      .nullable()
      .openapi({ description: "The client's IP address (CF-Connecting-IP, when trusted); null when not known" }),
    changes: z.record(z.string(), ChangeSchema).optional(),
  })
  .openapi("AuditEntry");

const q = (name: string) => ({ param: { name, in: "query" as const } });
const time = (name: string, description: string) =>
  z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .openapi({ ...q(name), description });

export const AuditFilterSchema = z.object({
  actor: IdSchema.optional().openapi({ ...q("actor"), description: "Only entries made by this user id" }),
  kind: z
    .string()
    .regex(/^[a-z_]+(\.[a-z_]+|\.\*)?$/)
    .max(64)
    .optional()
    .openapi({ ...q("kind"), description: "A kind (`member.added`) or a family (`member.*`)", example: "member.*" }),
  from: time("from", "Entries at or after this time (milliseconds since the epoch)"),
  to: time("to", "Entries before this time (milliseconds since the epoch)"),
});

export const AuditQuerySchema = AuditFilterSchema.extend({
  cursor: z.string().min(1).max(200).optional().openapi(q("cursor")),
  limit: z.coerce.number().int().min(1).max(1000).default(100).openapi(q("limit")),
});

export const AuditParamsSchema = z.object({ organizationId: pathId("organizationId") });

export const AuditPageSchema = z
  .object({ data: z.array(AuditEntrySchema), nextCursor: z.string().nullable() })
  .openapi("AuditPage");
