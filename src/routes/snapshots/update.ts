import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { errorResponses, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { snapshots } from "../../db/schema";
import { validation } from "../../errors";
import { now } from "../../lib/ids";
import { requireSnapshot } from "./helpers";

const route = defineRoute({
  operationId: "updateSnapshot",
  method: "put",
  path: "/snapshot/{snapshotId}",
  tags: ["Snapshots"],
  summary: "E8. Update a snapshot",
  description: "Renames or re-describes a snapshot; at least one of `name` and `description` (else 400). Edit access to its document.",
  security,
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
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerUpdateSnapshot(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { snapshotId } = c.req.valid("param");
    const body = c.req.valid("json");
    if (body.name === undefined && body.description === undefined) {
      throw validation("Provide at least one of name and description", [{ path: "body", message: "name or description is required" }]);
    }
    await requireSnapshot(db, c.get("user"), snapshotId, "edit");
    await db
      .update(snapshots)
      .set({
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        updatedAt: now(),
      })
      .where(eq(snapshots.id, snapshotId));
    return c.json({ data: { success: true as const } }, 200);
  });
}
