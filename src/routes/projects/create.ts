import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import {
  EmojiSchema,
  errorResponses,
  ignored,
  IconSchema,
  IdSchemaBody,
  jsonBody,
  NameSchema,
  okData,
  type Router,
} from "../../openapi";
import { createProject } from "../../services/projects/projects";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createProject",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/project",
  shard: { body: "workspaceId" },
  tags: ["Projects"],
  summary: "Create a project (workspace owner, admin or editor)",
  description:
    "Creates a project in a workspace where the caller is owner, admin or editor (a viewer is 403, a workspace the caller cannot read 404).",
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
  app.openapi(route, async (c) => c.json({ data: await createProject(ctxOf(c), c.req.valid("json")) }, 200));
}
