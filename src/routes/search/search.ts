import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, type Router } from "../../openapi";
import { IdSchema } from "../../schemas/ids";
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, search } from "../../services/search/search";
import { MAX_PREFIX_TERMS, MAX_QUERY_LENGTH, MIN_PREFIX_LENGTH } from "../../services/search/query";
import { MAX_CANDIDATES, TITLE_WEIGHT } from "../../services/search/rank";

const Ref = z.object({ _id: z.string(), name: z.string() });

const SearchHitSchema = z
  .object({
    _id: z.string().openapi({
      description:
        "The record's id: a document's, a file's (an EXTERNAL document), a row's, a comment's or a saved view's",
    }),
    kind: z.enum(["document", "file", "row", "comment", "view"]),
    title: z.string().openapi({
      description:
        "The document's name, the row's identifier cell or the view's name; for a comment, its target's (document or row)",
    }),
    workspaceId: z.string(),
    projectId: z.string(),
    tableId: z.string().nullable().openapi({
      description: "A row's or a view's table (or the table of a comment's row); null for documents and files",
    }),
    path: z.object({
      project: Ref,
      folders: z.array(Ref).openapi({ description: "Enclosing folders the caller can read, outermost first" }),
      table: Ref.nullable(),
    }),
    snippet: z.string().openapi({
      description: "HTML: text around the matches with every character escaped and the matched words in <mark>…</mark>",
    }),
    score: z.number().openapi({
      description:
        "Relevance, higher first, computed from this record's own text only (matches in its title and body, its length)",
    }),
    target: z
      .object({ documentId: z.string().nullable(), rowId: z.string().nullable(), threadId: z.string() })
      .nullable()
      .openapi({
        description:
          "For a comment (kind `comment`): the document or row it is on and its thread (GET /comment/{threadId}); null for other kinds",
      }),
  })
  .openapi("SearchHit");

const route = defineRoute({
  operationId: "search",
  // The caller's token, the access rules and the ranked page are one statement in one batch.
  // Authentication beside the statement: in the one shard of a workspace or project, or in every shard database at
  // once across everything the caller can read (one round trip either way).
  auth: "batched",
  roundTrips: 1,
  method: "get",
  path: "/search",
  shard: "service",
  tags: ["Search"],
  summary: "Full-text search over the documents, files, rows, comments and saved views the caller can read",
  description:
    `Ranked by \`score\`, computed from each record's own text alone (a title match weighs ${TITLE_WEIGHT}× a body match), ` +
    "never from other records, so nobody's data moves the order of yours. " +
    `Syntax: words (all must match), "quoted phrases", prefix \`term*\` (at least ${MIN_PREFIX_LENGTH} letters, at most ` +
    `${MAX_PREFIX_TERMS} prefixes a query), \`a OR b\`, and \`-word\` to exclude. ` +
    "Accents and case are ignored. Only records the caller can read are returned, and nothing is counted beyond the page. " +
    "A query that cannot be read (an unclosed quote, exclusions alone, a dangling OR) is 422, and so is one too broad " +
    `to rank (more than ${MAX_CANDIDATES} matching records in one database: add words or narrow it). ` +
    "Pass `nextCursor` as `cursor` for the next page.",
  request: {
    query: z.object({
      q: z
        .string()
        .min(1)
        .max(MAX_QUERY_LENGTH)
        .openapi({ param: { name: "q", in: "query" }, example: 'budget "annual report" -draft' }),
      workspaceId: IdSchema.optional().openapi({ param: { name: "workspaceId", in: "query" } }),
      projectId: IdSchema.optional().openapi({ param: { name: "projectId", in: "query" } }),
      type: z
        .enum(["document", "file", "row", "comment", "view"])
        .optional()
        .openapi({ param: { name: "type", in: "query" } }),
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_LIMIT)
        .default(DEFAULT_SEARCH_LIMIT)
        .openapi({ param: { name: "limit", in: "query" } }),
      cursor: z
        .string()
        .min(1)
        .max(200)
        .optional()
        .openapi({ param: { name: "cursor", in: "query" } }),
    }),
  },
  responses: {
    200: jsonResponse(
      z.object({ data: z.array(SearchHitSchema), nextCursor: z.string().nullable() }).openapi("SearchResults"),
    ),
    ...errorResponses("UnprocessableEntityError"),
  },
});

export function registerSearch(app: Router) {
  app.openapi(route, async (c) => c.json(await search(ctxOf(c), c.req.valid("query")), 200));
}
