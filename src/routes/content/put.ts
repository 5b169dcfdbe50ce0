import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, ignored, jsonBody, okData, pathId, type Router } from "../../openapi";
import { putContent } from "../../services/content/content";
import { BlocksSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "putContent",
  auth: "batched",
  method: "put",
  path: "/document/{documentId}/content",
  tags: ["Content"],
  summary: "Replace a document's block content",
  description:
    "Edit access to the document. On a document with a collaborative room the write goes through the room and reaches connected editors as one Yjs transaction. With `baseVersion`, the write happens only if it is still the current version (else 409 and nothing is written); of two concurrent writes with the same `baseVersion` exactly one wins. " +
    "`If-Match` with the ETag of GET means the same (else 412 and nothing is written). Without either the write always lands on top of the newest version. The response carries the new version's ETag. " +
    "Blocks nested more than 32 deep through `children`, or JSON nested more than 128 levels, are 422 naming the path of the first value past the bound.",
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    ...jsonBody(
      z.strictObject({
        blocks: BlocksSchema.refine((v) => v !== undefined, "Required"),
        baseVersion: z
          .number()
          .int()
          .min(0)
          .max(Number.MAX_SAFE_INTEGER)
          .optional()
          .openapi({ description: "The version this write is based on (0: never written)" }),
        ...ignored("documentId", "version"),
      }),
    ),
  },
  responses: {
    ...okData(z.object({ version: z.number().int() })),
    ...errorResponses("ConflictError", "PreconditionFailedError", "PayloadTooLargeError", "UnprocessableEntityError"),
  },
});

export function registerPutContent(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    const { version, etag } = await putContent(ctxOf(c), {
      documentId,
      blocks: body.blocks,
      baseVersion: body.baseVersion,
      expected: expectedVersionOf(c),
    });
    return c.json({ data: { version } }, 200, { ETag: etag });
  });
}
