import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { updateSnapshot } from "../../services/content/snapshots";

const route = defineRoute({
  operationId: "updateSnapshot",
  auth: "batched",
  method: "put",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "E8. Update a snapshot",
  description:
    "Renames or re-describes a snapshot; at least one of `name` and `description` (else 400). Edit access to its document. " +
    "`If-Match` with the ETag of GET /snapshot/{id}: 412 and nothing changed when the snapshot changed since. " +
    "The response carries the snapshot's new `ETag`.",
  request: {
    params: z.object({ snapshotId: pathId("snapshotId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        ...ignored("_id", "documentId", "contentVersion", "docxVersion", "userId", "createdAt", "updatedAt", "blocks"),
      }),
    ),
  },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses("PreconditionFailedError") },
});

export function registerUpdateSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const { snapshotId } = c.req.valid("param");
    const { name, description } = c.req.valid("json");
    const { etag } = await updateSnapshot(ctxOf(c), {
      snapshotId,
      patch: { name, description },
      expected: expectedVersionOf(c),
    });
    return c.json({ data: { success: true as const } }, 200, { ETag: etag });
  });
}
