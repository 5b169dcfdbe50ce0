import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, IdSchemaBody, jsonBody, jsonResponse, type Router } from "../../openapi";
import { getDocumentsData, MAX_EXPORT_DOCUMENTS } from "../../services/export/documentsData";

const ExportPayloadSchema = z
  .object({
    documentId: z.string(),
    references: z.object({
      clauses: z.array(z.record(z.string(), z.unknown())),
      tables: z.object({
        referenceRow: z.array(z.record(z.string(), z.unknown())),
        references: z.array(z.record(z.string(), z.unknown())),
      }),
    }),
    settings: z.object({ listTemplateId: z.string(), importedTermId: z.string() }),
    blocks: z.unknown(),
  })
  .openapi("ExportPayload");

const route = defineRoute({
  operationId: "getDocumentsData",
  // A POST authenticates eagerly (its Idempotency-Key is claimed in that batch, docs/api-guide.md › HTTP semantics: retries, caching, replicas), then a dependent read
  // (access, clause references, content and settings in one batch, table references in a second): 1 + 2.
  roundTrips: 3,
  method: "post",
  path: "/export/get-documents-data",
  shard: { body: "projectId" },
  tags: ["Export"],
  summary: "E5. Retrieve export data for documents",
  description:
    "For each listed document, in request order: its blocks, settings, clause references with `resolved` blocks (null where the target is missing or unreadable), and table references with their names and every referenced row with its cells. Every document must be readable and belong to `projectId`, else 403 and nothing is returned. `documentIds` are distinct (a repeated id is 400), at most 100; an answer that would pass 64 MiB is 422 (ask for fewer documents). The answer is streamed.",
  request: jsonBody(
    z.strictObject({
      projectId: IdSchemaBody,
      documentIds: z
        .array(IdSchemaBody)
        .min(1)
        .max(MAX_EXPORT_DOCUMENTS)
        .refine((ids) => new Set(ids).size === ids.length, "documentIds must be distinct"),
    }),
  ),
  responses: {
    200: jsonResponse(z.object({ exportData: z.array(ExportPayloadSchema) }).openapi("ExportData")),
    ...errorResponses("UnprocessableEntityError"),
  },
});

export function registerGetDocumentsData(app: Router) {
  app.openapi(route, async (c) => {
    const { projectId, documentIds } = c.req.valid("json");
    // Streamed: the documents' contents are piped from R2, never stringified whole (the service bounds the size).
    const stream = await getDocumentsData(ctxOf(c), { projectId, documentIds });
    return c.body(stream, 200, { "content-type": "application/json; charset=UTF-8" }) as never;
  });
}
