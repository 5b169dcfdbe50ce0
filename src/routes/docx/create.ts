import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { rawUploadOf } from "../../http/upload";
import { errorResponses, IdSchemaBody, NameSchema, okData, type Router } from "../../openapi";
import { createDocx } from "../../services/docx/docx";
import { DOCX_MEDIA_TYPE } from "../../services/docx/store";
import { DocumentSchema } from "../../schemas/core";
import { docxBody } from "../../schemas/content";

const route = defineRoute({
  operationId: "createDocx",
  method: "post",
  path: "/document/docx",
  shard: { query: "projectId" },
  tags: ["DOCX"],
  summary: "Create an EXTERNAL DOCX document from the raw DOCX bytes",
  description:
    "Access as for `POST /document`: at the project root workspace owner/admin/editor, inside a folder edit access to it. " +
    "Content-Length is required (411); over 50 MiB is 413; a body that is not a ZIP holding `word/document.xml`, or whose entries do not inflate to exactly the sizes and CRC-32 their headers declare, is 415 and nothing is stored. " +
    'The document gets `external: { type: "DOCX", resourcePath: "/document/docx/{id}/export", resourceId: <blob id> }`.',
  request: {
    query: z.object({
      projectId: IdSchemaBody,
      name: NameSchema,
      parentId: IdSchemaBody.optional(),
    }),
    ...docxBody(),
  },
  responses: {
    ...okData(DocumentSchema),
    ...errorResponses("LengthRequiredError", "PayloadTooLargeError", "UnsupportedMediaTypeError"),
  },
});

export function registerCreateDocx(app: Router) {
  app.openapi(route, async (c) => {
    const { projectId, name, parentId } = c.req.valid("query");
    const upload = rawUploadOf(c, isDocxType);
    return c.json({ data: await createDocx(ctxOf(c), { projectId, name, parentId, upload }) }, 200);
  });
}

export const isDocxType = (t: string) => t === DOCX_MEDIA_TYPE || t === "application/zip";
