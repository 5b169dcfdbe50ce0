import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { restoreSnapshot } from "../../services/content/snapshotRestore";

const route = defineRoute({
  operationId: "restoreSnapshot",
  method: "post",
  path: "/snapshot/{snapshotId}/restore",
  tags: ["Snapshots"],
  summary: "Restore a snapshot",
  description:
    'Edit access to its document. In one transaction, snapshots the current state as "Before restore" (so nothing is lost), writes the frozen blocks as a new content version ' +
    "and, for a DOCX snapshot, stores the frozen DOCX as a new newest version. Frozen blocks nested past the content bound (32 blocks deep; frozen before it existed) are 422 and nothing is restored.",
  request: { params: z.object({ snapshotId: pathId("snapshotId") }) },
  responses: {
    ...okData(
      z
        .object({
          contentVersion: z
            .number()
            .int()
            .openapi({ description: "The new content version holding the restored blocks" }),
          docxVersion: z.number().int().nullable().openapi({ description: "The new newest DOCX version, or null" }),
          beforeRestoreSnapshotId: z.string(),
        })
        .openapi("SnapshotRestore"),
    ),
    ...errorResponses("ConflictError", "UnprocessableEntityError"),
  },
});

export function registerRestoreSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const { snapshotId } = c.req.valid("param");
    return c.json({ data: await restoreSnapshot(ctxOf(c), { snapshotId }) }, 200);
  });
}
