import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { restoreSnapshot } from "../../services/content/snapshots";
import { requireSnapshot } from "./helpers";

const route = defineRoute({
  operationId: "restoreSnapshot",
  method: "post",
  path: "/snapshot/{snapshotId}/restore",
  tags: ["Snapshots"],
  summary: "Restore a snapshot",
  description:
    "Edit access to its document. First snapshots the current state as \"Before restore\" (so nothing is lost), then writes the frozen blocks as a new content version " +
    "and, for a DOCX snapshot, stores the frozen DOCX as a new newest version. A content write racing the restore makes it 409 (retry).",
  security,
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: {
    ...okData(
      z
        .object({
          contentVersion: z.number().int().openapi({ description: "The new content version holding the restored blocks" }),
          docxVersion: z.number().int().nullable().openapi({ description: "The new newest DOCX version, or null" }),
          beforeRestoreSnapshotId: z.string(),
        })
        .openapi("SnapshotRestore"),
    ),
    ...errorResponses("ConflictError"),
  },
});

export function registerRestoreSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const { snapshotId } = c.req.valid("param");
    const { snapshot, access } = await requireSnapshot(db, user, snapshotId, "edit");
    const result = await restoreSnapshot(db, c.env.BLOBS, snapshot, access.doc, user._id);
    return c.json({ data: result }, 200);
  });
}
