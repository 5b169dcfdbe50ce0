import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { snapshotBlocksJson, snapshotDto } from "../../services/content/snapshots";
import { BlocksSchema, SnapshotSchema } from "../../schemas/content";
import { requireSnapshot } from "./helpers";

const route = defineRoute({
  operationId: "getSnapshot",
  method: "get",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "Read a snapshot with its frozen blocks",
  description: "Read access to the snapshot's document. Unlike the list, the single record carries the frozen `blocks`.",
  security,
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: { ...okData(SnapshotSchema.extend({ blocks: BlocksSchema }).openapi("SnapshotWithBlocks")), ...errorResponses() },
});

export function registerGetSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { snapshotId } = c.req.valid("param");
    const { snapshot } = await requireSnapshot(db, c.get("user"), snapshotId, "read");
    const blocksJson = await snapshotBlocksJson(c.env.BLOBS, snapshot);
    const record = JSON.stringify(snapshotDto(snapshot));
    // Splice the stored block JSON in verbatim (see GET /document/{id}/content).
    const body = `{"data":${record.slice(0, -1)},"blocks":${blocksJson}}}`;
    return c.body(body, 200, { "content-type": "application/json; charset=UTF-8" }) as never;
  });
}
