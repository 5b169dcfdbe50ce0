import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { listSnapshots } from "../../services/content/snapshots";
import { SnapshotSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "listSnapshots",
  auth: "batched",
  method: "get",
  path: "/snapshot/all/{documentId}",
  tags: ["Snapshots"],
  summary: "List a document's snapshots, newest first",
  description: "Read access to the document.",
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(SnapshotSchema)), ...errorResponses() },
});

export function registerListSnapshots(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    return c.json({ data: await listSnapshots(ctxOf(c), { documentId }) }, 200);
  });
}
