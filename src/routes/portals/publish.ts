import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { ProjectSchema } from "../../schemas/core";
import { unprocessable } from "../../errors";
import { publishProject, unpublishProject, updatePublishedEntry } from "../../services/portals/entries";
import { requestHost } from "../../http/portalHeaders";
import { DomainSchema, ExpiresAtSchema, HomepageSchema, PasswordSchema, SlugParam, SlugSchema } from "./schemas";

const publishRoute = defineRoute({
  method: "post",
  path: "/project/{id}/publish",
  operationId: "publishProject",
  tags: ["Portals"],
  summary: "Publish a project as a portal (project admin)",
  description:
    "Adds a published entry. The slug is unique across the service (409), as is the domain. A password is stored as a PBKDF2 hash; " +
    "`published[].password` then reads `********`. Answers the project.",
  request: {
    params: z.object({ id: pathId("id") }),
    ...jsonBody(
      z.strictObject({
        slug: SlugSchema,
        domain: DomainSchema.optional(),
        homepage: HomepageSchema.optional(),
        password: PasswordSchema.nullable().optional(),
        expiresAt: ExpiresAtSchema.nullable().optional(),
        allowIndexing: z.boolean().optional(),
      }),
    ),
  },
  responses: { ...okData(ProjectSchema), ...errorResponses("ConflictError", "UnprocessableEntityError") },
});

const slugParams = z.object({ id: pathId("id"), slug: SlugParam });

const updateRoute = defineRoute({
  method: "patch",
  path: "/project/{id}/publish/{slug}",
  operationId: "updatePublishedEntry",
  auth: "batched",
  tags: ["Portals"],
  summary: "Change a published entry (project admin)",
  description:
    "`password: \"\"` or `null` removes the password, `\"********\"` (as read) keeps it; `expiresAt: null` removes the expiry. " +
    "An entry past `expiresAt` answers as disabled.",
  request: {
    params: slugParams,
    ...jsonBody(
      z.strictObject({
        domain: DomainSchema.optional(),
        homepage: HomepageSchema.optional(),
        password: PasswordSchema.nullable().optional(),
        disabled: z.boolean().optional(),
        expiresAt: ExpiresAtSchema.nullable().optional(),
        allowIndexing: z.boolean().optional(),
        slug: z.unknown().optional().transform((): undefined => undefined).openapi({ description: "Read-only; ignored when sent" }),
      }),
    ),
  },
  responses: { ...okData(ProjectSchema), ...errorResponses("ConflictError", "UnprocessableEntityError") },
});

const deleteRoute = defineRoute({
  method: "delete",
  path: "/project/{id}/publish/{slug}",
  operationId: "unpublishProject",
  auth: "batched",
  tags: ["Portals"],
  summary: "Remove a published entry (project admin)",
  request: { params: slugParams },
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

/** A portal domain equal to the API's own host would shadow the API's routes on it. */
function refuseOwnHost(domain: string | undefined, host: string) {
  if (domain && domain === requestHost(host)) {
    throw unprocessable("domain must not be this service's own host", [{ path: "domain", message: "is this service's own host" }]);
  }
}

export function registerPublishRoutes(app: Router) {
  app.openapi(publishRoute, async (c) => {
    const body = c.req.valid("json");
    refuseOwnHost(body.domain, new URL(c.req.url).host);
    const data = await publishProject(ctxOf(c), c.req.valid("param").id, body);
    return c.json({ data }, 200);
  });
  app.openapi(updateRoute, async (c) => {
    const { id, slug } = c.req.valid("param");
    const body = c.req.valid("json");
    refuseOwnHost(body.domain, new URL(c.req.url).host);
    const data = await updatePublishedEntry(ctxOf(c), id, slug.toLowerCase(), body);
    return c.json({ data }, 200);
  });
  app.openapi(deleteRoute, async (c) => {
    const { id, slug } = c.req.valid("param");
    const data = await unpublishProject(ctxOf(c), id, slug.toLowerCase());
    return c.json({ data }, 200);
  });
}
