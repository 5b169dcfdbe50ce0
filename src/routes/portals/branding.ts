import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { ProjectSchema } from "../../schemas/core";
import { putBranding } from "../../services/portals/entries";
import { BrandingBodySchema } from "./schemas";

const route = defineRoute({
  method: "put",
  path: "/project/{id}/branding",
  operationId: "putProjectBranding",
  auth: "batched",
  tags: ["Portals"],
  summary: "Set the branding of a project's portals (project admin)",
  description:
    'Replaces the branding E13 returns. Links (logo, company and call-to-action URLs, socials given as URLs) must be absolute http(s) URLs or "" (400 otherwise); E13 never returns any other.',
  request: { params: z.object({ id: pathId("id") }), ...jsonBody(BrandingBodySchema) },
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

export function registerPutBranding(app: Router) {
  app.openapi(route, async (c) => {
    const data = await putBranding(ctxOf(c), { projectId: c.req.valid("param").id, branding: c.req.valid("json") });
    return c.json({ data }, 200);
  });
}
