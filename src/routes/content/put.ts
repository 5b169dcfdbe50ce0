import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { errorResponses, ignored, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { ApiError } from "../../errors";
import { writeContent } from "../../services/content/store";
import { BlocksSchema } from "../../schemas/content";

/** API.md §12: JSON bodies are capped at 10 MiB. */
const MAX_CONTENT_BODY = 10 * 1024 * 1024;

const route = defineRoute({
  operationId: "putContent",
  method: "put",
  path: "/document/{documentId}/content",
  tags: ["Content"],
  summary: "Replace a document's block content",
  description:
    "Edit access to the document. With `baseVersion`, the write happens only if it is still the current version (else 409 and nothing is written); of two concurrent writes with the same `baseVersion` exactly one wins. Without it the write always lands on top of the newest version.",
  security,
  middleware: [
    bodyLimit({
      maxSize: MAX_CONTENT_BODY,
      onError: () => {
        throw new ApiError("PayloadTooLargeError", `The body exceeds ${MAX_CONTENT_BODY} bytes`);
      },
    }),
  ] as const,
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    ...jsonBody(
      z.strictObject({
        blocks: BlocksSchema.refine((v) => v !== undefined, "Required"),
        baseVersion: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().openapi({ description: "The version this write is based on (0: never written)" }),
        ...ignored("documentId", "version"),
      }),
    ),
  },
  responses: { ...okData(z.object({ version: z.number().int() })), ...errorResponses("ConflictError", "PayloadTooLargeError") },
});

export function registerPutContent(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    await requireDocument(db, user, documentId, "edit");
    const { version } = await writeContent(db, c.env.BLOBS, {
      documentId,
      userId: user._id,
      blocksJson: JSON.stringify(body.blocks),
      baseVersion: body.baseVersion,
    });
    return c.json({ data: { version } }, 200);
  });
}
