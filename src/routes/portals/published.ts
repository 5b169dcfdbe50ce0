import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { ApiError } from "../../errors";
import { errorResponses, onlyErrorResponses } from "../../http/errors";
import { dataOf, jsonBody, security, type Router } from "../../openapi";
import { getPublishedBranding, getPublishedProject, loginPublished } from "../../services/portals/reader";
import { ifNoneMatchHits, requestHost, strongEtag } from "../../http/portalHeaders";
import { LOGIN_PERIOD_SECONDS, spendPortalLogin } from "../../http/portalLogin";
import { BrandingSchema, PortalQuery, PublishedIdParam, PublishedProjectSchema } from "./schemas";

/** Bearer-authenticated reads: a browser may keep them but no shared cache may, and each use revalidates. */
const API_CACHE_CONTROL = "private, no-cache";

const params = z.object({ publishedId: PublishedIdParam });

const notModified = { 304: { description: "Not modified: If-None-Match names the current ETag" } };

const brandingRoute = defineRoute({
  method: "get",
  path: "/published/{publishedId}/branding",
  operationId: "getPublishedBranding",
  tags: ["Portals"],
  summary: "E13: retrieve published project branding",
  description:
    "Any valid bearer token. `home` resolves the entry whose domain is the Host, else `?slug=`. `data` is null when no branding is set.",
  security,
  request: { params, query: PortalQuery },
  responses: {
    200: {
      description: "OK",
      headers: { ETag: { schema: { type: "string" } } },
      content: { "application/json": { schema: dataOf(BrandingSchema.nullable()) } },
    },
    ...notModified,
    ...onlyErrorResponses("ValidationError", "UnauthorizedError", "NotFoundError", "RateLimitedError", "InternalError"),
  },
});

const projectRoute = defineRoute({
  method: "get",
  path: "/published/{publishedId}/project",
  operationId: "getPublishedProject",
  tags: ["Portals"],
  summary: "E14: retrieve published project data",
  description:
    "Any valid bearer token. The entry must be active (disabled or expired: 403). A password-protected portal needs a `user-published-token` " +
    "header from the login route (401 without a valid one). `projectData` lists only published, non-deleted documents.",
  security,
  request: {
    params,
    query: PortalQuery,
    headers: z.object({ "user-published-token": z.string().max(512).optional() }),
  },
  responses: {
    200: {
      description: "OK",
      headers: { ETag: { schema: { type: "string" } } },
      content: { "application/json": { schema: dataOf(PublishedProjectSchema) } },
    },
    ...notModified,
    ...errorResponses(),
  },
});

const loginRoute = defineRoute({
  method: "post",
  path: "/published/{publishedId}/login",
  // Its service needs the caller before its first read (or writes first): authenticated on its own, one round trip.
  auth: "token",
  operationId: "loginPublishedProject",
  tags: ["Portals"],
  summary: "Exchange a portal password for a user-published-token (valid 24 hours)",
  description:
    "10 attempts per minute per client address and portal, and 100 per portal across all addresses; then 429 with Retry-After.",
  security,
  request: { params, query: PortalQuery, ...jsonBody(z.strictObject({ password: z.string().max(200) })) },
  responses: {
    200: {
      description: "OK",
      content: { "application/json": { schema: dataOf(z.object({ token: z.string(), expiresAt: z.number() })) } },
    },
    ...errorResponses("ServiceUnavailableError"),
  },
});

/** 10 password attempts per minute per client address and portal entry, 100 per entry (src/http/portalLogin.ts); over it, 429 with Retry-After. */
export async function spendLoginAttempt(c: Context<HonoEnv>, entrySlug: string) {
  if (!(await spendPortalLogin(c.env, c.req.raw, entrySlug))) {
    throw new ApiError(
      "RateLimitedError",
      "Too many password attempts for this portal; retry after the period in Retry-After",
      { retryAfterSeconds: LOGIN_PERIOD_SECONDS },
    );
  }
}

function conditionalJson(c: Context<HonoEnv>, etag: string, body: unknown) {
  const headers = { ETag: etag, "Cache-Control": API_CACHE_CONTROL, Vary: "Authorization, user-published-token, Host" };
  if (ifNoneMatchHits(c.req.header("if-none-match"), etag)) return c.body(null, 304, headers);
  return c.json(body, 200, headers);
}

export function registerPublishedRoutes(app: Router) {
  app.openapi(brandingRoute, async (c) => {
    const { publishedId } = c.req.valid("param");
    const { branding, version } = await getPublishedBranding(ctxOf(c), {
      publishedId,
      host: requestHost(new URL(c.req.url).host),
      slug: c.req.valid("query").slug,
    });
    return conditionalJson(c, strongEtag(`b-${version}`), { data: branding }) as never;
  });
  app.openapi(projectRoute, async (c) => {
    const { publishedId } = c.req.valid("param");
    const token = c.req.valid("header")["user-published-token"] ?? null;
    const out = await getPublishedProject(ctxOf(c), {
      address: { publishedId, host: requestHost(new URL(c.req.url).host), slug: c.req.valid("query").slug },
      readerToken: token,
    });
    return conditionalJson(c, strongEtag(`p-${out.version}-${out.slug}`), {
      data: { projectId: out.projectId, projectData: out.projectData },
    }) as never;
  });
  app.openapi(loginRoute, async (c) => {
    const { publishedId } = c.req.valid("param");
    const { slug } = c.req.valid("query");
    const addr = { publishedId, host: requestHost(new URL(c.req.url).host), slug };
    const data = await loginPublished(ctxOf(c), {
      address: addr,
      password: c.req.valid("json").password,
      spendAttempt: (entrySlug) => spendLoginAttempt(c, entrySlug),
    });
    return c.json({ data }, 200);
  });
}
