import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf } from "../../http/conditional";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { deleteSnapshot } from "../../services/content/snapshots";

const route = defineRoute({
  operationId: "deleteSnapshot",
  auth: "batched",
  method: "delete",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "Delete a snapshot (hard delete)",
  description:
    "Edit access to its document. Its frozen content is deleted from storage unless the current content or another snapshot still shares it. " +
    "`If-Match` with the ETag of GET /snapshot/{id}: 412 and nothing deleted when the snapshot changed since.",
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses("PreconditionFailedError") },
});

export function registerDeleteSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const { snapshotId } = c.req.valid("param");
    await deleteSnapshot(ctxOf(c), { snapshotId, expected: expectedVersionOf(c) });
    return c.json({ data: { success: true as const } }, 200);
  });
}
