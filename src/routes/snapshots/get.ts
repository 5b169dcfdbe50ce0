import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { jsonTextWithEtag } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { getSnapshot } from "../../services/content/snapshots";
import { BlocksSchema, SnapshotSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "getSnapshot",
  auth: "batched",
  method: "get",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "Read a snapshot with its frozen blocks",
  description:
    "Read access to the snapshot's document. Unlike the list, the single record carries the frozen `blocks`. " +
    "Carries a strong ETag; If-None-Match answers 304; PUT and DELETE accept If-Match.",
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: {
    ...okData(SnapshotSchema.extend({ blocks: BlocksSchema }).openapi("SnapshotWithBlocks")),
    ...errorResponses(),
    304: { description: "Not modified (If-None-Match matched the ETag)" },
  },
});

export function registerGetSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const { snapshotId } = c.req.valid("param");
    const snapshot = await getSnapshot(ctxOf(c), { snapshotId });
    return jsonTextWithEtag(c, snapshot.etag, async () => {
      const record = JSON.stringify(snapshot.dto);
      // Splice the stored block JSON in verbatim (see GET /document/{id}/content).
      return { etag: snapshot.etag, text: `{"data":${record.slice(0, -1)},"blocks":${await snapshot.blocksJson()}}}` };
    }) as never;
  });
}
