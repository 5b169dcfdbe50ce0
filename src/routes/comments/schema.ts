/** The shapes of the comment routes (docs/api-guide.md › Comments). */
import { z } from "@hono/zod-openapi";
import { pathId } from "../../openapi";
import { MAX_COMMENT_BODY } from "../../services/comments/dto";
import { IdSchema } from "../../schemas/ids";

export const CommentBodySchema = z
  .string()
  .min(1)
  .max(MAX_COMMENT_BODY)
  .refine((s) => s.trim().length > 0, "body is empty")
  .openapi({ description: "Markdown (the subset the Markdown import reads); `@[userId]` mentions a user." });

const AnchorSchema = z
  .strictObject({
    blockId: z.string().min(1).max(200),
    start: z.number().int().min(0).max(1_000_000_000).optional(),
    end: z.number().int().min(0).max(1_000_000_000).optional(),
  })
  .refine((a) => a.start === undefined || a.end === undefined || a.start <= a.end, "start is after end")
  .openapi("CommentAnchor");

export const DocumentCommentInput = z.strictObject({ body: CommentBodySchema, anchor: AnchorSchema.optional() });
export const RowCommentInput = z.strictObject({ body: CommentBodySchema, columnId: IdSchema.optional() });
export const BodyInput = z.strictObject({ body: CommentBodySchema });

export const CommentSchema = z
  .object({
    _id: z.string(),
    threadId: z.string(),
    parentId: z.string().nullable(),
    target: z.object({
      documentId: z.string().optional(),
      rowId: z.string().optional(),
      tableId: z.string().optional(),
      columnId: z.string().optional(),
      anchor: z
        .object({ blockId: z.string(), start: z.number().int().optional(), end: z.number().int().optional() })
        .optional(),
    }),
    authorId: z.string(),
    body: z.string(),
    createdAt: z.number().int(),
    updatedAt: z.number().int(),
    editedAt: z.number().int().nullable(),
    isDeleted: z.boolean(),
    status: z.enum(["open", "resolved"]),
    resolvedBy: z.string().nullable(),
    resolvedAt: z.number().int().nullable(),
    reactions: z.array(z.object({ emoji: z.string(), userIds: z.array(z.string()) })),
    mentions: z.array(z.string()),
    detached: z.boolean(),
  })
  .openapi("Comment");

/** A write's answer: the comment, and the mentioned users who were not notified (they cannot read the target). */
export const WrittenCommentSchema = CommentSchema.extend({ unnotified: z.array(z.string()) }).openapi("WrittenComment");

export const ThreadSchema = CommentSchema.extend({ replies: z.array(CommentSchema) }).openapi("CommentThread");

export const ThreadsPageSchema = z
  .object({ data: z.array(ThreadSchema), nextCursor: z.string().nullable() })
  .openapi("CommentThreadsPage");

export const ThreadQuerySchema = z.object({
  status: z
    .enum(["open", "resolved", "all"])
    .default("all")
    .openapi({ param: { name: "status", in: "query" } }),
  blockId: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "blockId", in: "query" } }),
  cursor: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(100)
    .default(50)
    .openapi({ param: { name: "limit", in: "query" } }),
});

/** One emoji (a grapheme of pictographs, modifiers, joiners, selectors or regional indicators), ≤ 32 bytes; never an id. */
export const EmojiParamSchema = z
  .string()
  .min(1)
  .max(32)
  .refine(
    (s) =>
      new TextEncoder().encode(s).length <= 32 &&
      /^[\p{Extended_Pictographic}\p{Regional_Indicator}](?:[\p{Extended_Pictographic}\p{Emoji_Modifier}\p{Regional_Indicator}]|\u200d|\ufe0f|\u20e3)*$/u.test(
        s,
      ) &&
      [...new Intl.Segmenter().segment(s)].length === 1,
    "emoji is one emoji, at most 32 bytes",
  )
  .openapi({ param: { name: "emoji", in: "path" }, example: "👍" });

export const commentIdParam = z.object({ commentId: pathId("commentId") });
