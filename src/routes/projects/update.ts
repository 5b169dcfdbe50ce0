import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { expectedVersionOf, withEtag } from "../../http/conditional";
import {
  EmojiSchema,
  errorResponses,
  IconSchema,
  ignored,
  jsonBody,
  NameSchema,
  okData,
  pathId,
  type Router,
} from "../../openapi";
import { updateProject } from "../../services/projects/projects";
import { ProjectSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "updateProject",
  auth: "batched",
  method: "patch",
  path: "/project/{id}",
  tags: ["Projects"],
  summary: "Update a project (workspace owner, admin or editor)",
  description:
    "`If-Match` with the project's ETag makes the update conditional: 412 and nothing changed when it no longer matches. The response carries the new ETag.",
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema.optional(),
        description: z.string().max(10_000).optional(),
        reference: z.string().max(1000).optional(),
        icon: IconSchema.nullable().optional(),
        emoji: EmojiSchema.nullable().optional(),
        ...ignored(
          "_id",
          "userId",
          "workspaceId",
          "originId",
          "createdAt",
          "updatedAt",
          "published",
          "publishedBranding",
        ),
      }),
    ),
  },
  responses: { ...okData(ProjectSchema), ...errorResponses("PreconditionFailedError") },
});

export function registerUpdateProject(app: Router) {
  app.openapi(route, async (c) => {
    const body = {
      data: await updateProject(ctxOf(c), {
        projectId: c.req.valid("param").id,
        patch: c.req.valid("json"),
        expected: expectedVersionOf(c),
      }),
    };
    await withEtag(c, body);
    return c.json(body, 200);
  });
}
