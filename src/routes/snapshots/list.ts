import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { requireDocument } from "../../auth/access";
import { listSnapshots, snapshotDto } from "../../services/content/snapshots";
import { SnapshotSchema } from "../../schemas/content";

const route = defineRoute({
  operationId: "listSnapshots",
  method: "get",
  path: "/snapshot/all/{documentId}",
  tags: ["Snapshots"],
  summary: "List a document's snapshots, newest first",
  description: "Read access to the document.",
  security,
  request: { params: z.object({ documentId: pathId("documentId") }) },
  responses: { ...okData(z.array(SnapshotSchema)), ...errorResponses() },
});

export function registerListSnapshots(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { documentId } = c.req.valid("param");
    await requireDocument(db, c.get("user"), documentId, "read");
    const rows = await listSnapshots(db, documentId);
    return c.json({ data: rows.map(snapshotDto) }, 200);
  });
}
