import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { deleteSnapshot } from "../../services/content/snapshots";
import { requireSnapshot } from "./helpers";

const route = defineRoute({
  operationId: "deleteSnapshot",
  method: "delete",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "Delete a snapshot (hard delete)",
  description: "Edit access to its document. Its frozen content is deleted from storage unless the current content or another snapshot still shares it.",
  security,
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerDeleteSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { snapshotId } = c.req.valid("param");
    const { snapshot } = await requireSnapshot(db, c.get("user"), snapshotId, "edit");
    await deleteSnapshot(db, c.env.BLOBS, snapshot);
    return c.json({ data: { success: true as const } }, 200);
  });
}
