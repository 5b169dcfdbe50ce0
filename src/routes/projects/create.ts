import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { EmojiSchema, errorResponses, ignored, IconSchema, IdSchemaBody, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { projects } from "../../db/schema";
import { requireWorkspace } from "../../auth/access";
import { newId, now } from "../../lib/ids";
import { projectDto } from "../../services/workspaces/serialize";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createProject",
  method: "post",
  path: "/project",
  tags: ["Projects"],
  summary: "Create a project (workspace owner, admin or editor)",
  security,
  request: jsonBody(
    z.strictObject({
      workspaceId: IdSchemaBody,
      name: NameSchema,
      description: z.string().max(10_000).optional(),
      reference: z.string().max(1000).optional(),
      icon: IconSchema.nullable().optional(),
      emoji: EmojiSchema.nullable().optional(),
      ...ignored("_id", "userId", "originId", "createdAt", "updatedAt", "published", "publishedBranding"),
    }),
  ),
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

export function registerCreateProject(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const body = c.req.valid("json");
    await requireWorkspace(db, user, body.workspaceId, "edit");
    const t = now();
    const [row] = await db
      .insert(projects)
      .values({
        id: newId(),
        workspaceId: body.workspaceId,
        userId: user._id,
        name: body.name,
        description: body.description ?? "",
        reference: body.reference ?? "",
        icon: body.icon ?? null,
        emoji: body.emoji ?? null,
        published: [],
        createdAt: t,
        updatedAt: t,
      })
      .returning();
    return c.json({ data: projectDto(row!) }, 200);
  });
}
