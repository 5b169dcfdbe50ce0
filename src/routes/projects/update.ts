import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { EmojiSchema, errorResponses, IconSchema, ignored, jsonBody, NameSchema, okData, pathId, security, type Router } from "../../openapi";
import { projects } from "../../db/schema";
import { requireProject } from "../../auth/access";
import { now } from "../../lib/ids";
import { projectDto } from "../../services/workspaces/serialize";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateProject",
  method: "patch",
  path: "/project/{id}",
  tags: ["Projects"],
  summary: "Update a project (workspace owner, admin or editor)",
  security,
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        reference: z.string().max(1000).optional(),
        icon: IconSchema.nullable().optional(),
        emoji: EmojiSchema.nullable().optional(),
        ...ignored("_id", "userId", "workspaceId", "originId", "createdAt", "updatedAt", "published", "publishedBranding"),
      }),
    ),
  },
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

export function registerUpdateProject(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { id } = c.req.valid("param");
    const { name, description, reference, icon, emoji } = c.req.valid("json");
    await requireProject(db, c.get("user"), id, "write");
    const [row] = await db
      .update(projects)
      .set({
        ...(name !== undefined && { name }),
        ...(description !== undefined && { description }),
        ...(reference !== undefined && { reference }),
        ...(icon !== undefined && { icon }),
        ...(emoji !== undefined && { emoji }),
        updatedAt: now(),
      })
      .where(eq(projects.id, id))
      .returning();
    return c.json({ data: projectDto(row!) }, 200);
  });
}
