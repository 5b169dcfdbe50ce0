import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { ProjectSchema } from "../../schemas/core";
import {
  publishProject,
  unpublishProject,
  updatePublishedEntry,
  verifyEntryDomain,
} from "../../services/portals/entries";
import { refuseOwnHost } from "../../services/portals/domains";
import { DomainSchema, ExpiresAtSchema, HomepageSchema, PasswordSchema, SlugParam, SlugSchema } from "./schemas";

const publishRoute = defineRoute({
  method: "post",
  path: "/project/{id}/publish",
  operationId: "publishProject",
  tags: ["Portals"],
  summary: "Publish a project as a portal (project admin)",
  description:
    "Adds a published entry. The slug is unique across the service (409), as is a verified domain. A `domain` may not be one of the " +
    "service's own host names (422) and is served only once verified (`domainVerification`, then verify-domain). A password is stored as a PBKDF2 hash; " +
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
  // A verified domain replaced by another: the access read, the directory's check of the new domain beside the other
  // shards', the shard's write, then the old domain's route released in the directory (docs/scaling.md "Portal routes").
  roundTrips: 4,
  tags: ["Portals"],
  summary: "Change a published entry (project admin)",
  description:
    'A changed `domain` starts a new, pending verification. `password: ""` or `null` removes the password, `"********"` (as read) keeps it; `expiresAt: null` removes the expiry. ' +
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
        slug: z
          .unknown()
          .optional()
          .transform((): undefined => undefined)
          .openapi({ description: "Read-only; ignored when sent" }),
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
  description:
    "Removes the published entry named by its slug; its portal stops being served. Answers the project with its remaining entries.",
  request: { params: slugParams },
  responses: { ...okData(ProjectSchema), ...errorResponses() },
});

const verifyRoute = defineRoute({
  method: "post",
  path: "/project/{id}/publish/{slug}/verify-domain",
  operationId: "verifyPublishedDomain",
  tags: ["Portals"],
  summary: "Verify ownership of a published entry's domain (project admin)",
  description:
    "Looks up the TXT record named by the entry's `domainVerification.txtName` through DNS over HTTPS; when it holds `txtValue`, the domain " +
    "is verified and from then on served. 422 while the record does not hold it (or the entry has no domain); 409 when another portal " +
    "verified the domain first; 503 when the resolver cannot be reached. Answers the project.",
  request: { params: slugParams },
  responses: {
    ...okData(ProjectSchema),
    ...errorResponses("ConflictError", "UnprocessableEntityError", "ServiceUnavailableError"),
  },
});

export function registerPublishRoutes(app: Router) {
  app.openapi(publishRoute, async (c) => {
    const body = c.req.valid("json");
    refuseOwnHost(body.domain, c.env, c.req.url);
    const data = await publishProject(ctxOf(c), { projectId: c.req.valid("param").id, entry: body });
    return c.json({ data }, 200);
  });
  app.openapi(updateRoute, async (c) => {
    const { id, slug } = c.req.valid("param");
    const body = c.req.valid("json");
    refuseOwnHost(body.domain, c.env, c.req.url);
    const data = await updatePublishedEntry(ctxOf(c), { projectId: id, slug: slug.toLowerCase(), patch: body });
    return c.json({ data }, 200);
  });
  app.openapi(verifyRoute, async (c) => {
    const { id, slug } = c.req.valid("param");
    const data = await verifyEntryDomain(ctxOf(c), { projectId: id, slug: slug.toLowerCase() });
    return c.json({ data }, 200);
  });
  app.openapi(deleteRoute, async (c) => {
    const { id, slug } = c.req.valid("param");
    const data = await unpublishProject(ctxOf(c), { projectId: id, slug: slug.toLowerCase() });
    return c.json({ data }, 200);
  });
}
