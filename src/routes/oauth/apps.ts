/** OAuth apps of an organization (docs/api-guide.md › OAuth apps): register, list, delete; owner or admin only. */
import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, NameSchema, okData, pathId, type Router } from "../../openapi";
import { IdSchema } from "../../schemas/ids";
import { createOAuthApp, deleteOAuthApp, listOAuthApps, MAX_REDIRECT_URIS } from "../../services/oauth/apps";

const OAuthAppSchema = z
  .object({
    clientId: IdSchema,
    name: z.string(),
    redirectUris: z.array(z.string()),
    createdAt: z.number().int(),
  })
  .openapi("OAuthApp");

const NewOAuthAppSchema = OAuthAppSchema.extend({
  organizationId: IdSchema,
  clientSecret: z.string().openapi({ description: "Shown only in this answer; only its SHA-256 hash is stored." }),
}).openapi("NewOAuthApp");

const create = defineRoute({
  operationId: "createOAuthApp",
  method: "post",
  path: "/organization/{organizationId}/oauth-app",
  tags: ["Organizations"],
  summary: "Register an OAuth app",
  description:
    "Needs the organization owner or admin role. `redirectUris` are matched exactly by `/oauth/authorize`: https URLs " +
    "(http only on localhost, 127.0.0.1 or [::1]) without a fragment. The answer's `clientSecret` is shown only here. " +
    "An organization holds at most 50 apps.",
  request: {
    params: z.object({ organizationId: pathId("organizationId") }),
    ...jsonBody(
      z.strictObject({
        name: NameSchema,
        redirectUris: z.array(z.string().min(1).max(2000)).min(1).max(MAX_REDIRECT_URIS),
      }),
    ),
  },
  responses: { ...okData(NewOAuthAppSchema), ...errorResponses() },
});

const list = defineRoute({
  operationId: "listOAuthApps",
  method: "get",
  path: "/organization/{organizationId}/oauth-app/all",
  auth: "batched",
  // The organization check with the token, then the apps in the directory.
  roundTrips: 2,
  tags: ["Organizations"],
  summary: "List the organization's OAuth apps",
  description: "Needs the organization owner or admin role. Newest first, without secrets.",
  request: { params: z.object({ organizationId: pathId("organizationId") }) },
  responses: { ...okData(z.array(OAuthAppSchema)), ...errorResponses() },
});

const remove = defineRoute({
  operationId: "deleteOAuthApp",
  method: "delete",
  path: "/organization/{organizationId}/oauth-app/{clientId}",
  auth: "batched",
  tags: ["Organizations"],
  summary: "Delete an OAuth app and revoke what it was granted",
  description:
    "Needs the organization owner or admin role. Its pending codes, refresh tokens and the access tokens issued to it stop working at once. " +
    "An app of another organization is 404.",
  request: { params: z.object({ organizationId: pathId("organizationId"), clientId: pathId("clientId") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerOAuthAppRoutes(app: Router) {
  app.openapi(create, async (c) =>
    c.json(
      {
        data: await createOAuthApp(ctxOf(c), {
          organizationId: c.req.valid("param").organizationId,
          ...c.req.valid("json"),
        }),
      },
      200,
    ),
  );
  app.openapi(list, async (c) => c.json({ data: await listOAuthApps(ctxOf(c), c.req.valid("param")) }, 200));
  app.openapi(remove, async (c) => {
    await deleteOAuthApp(ctxOf(c), c.req.valid("param"));
    return c.json({ data: { success: true as const } }, 200);
  });
}
