/**
 * CORS for browser apps on other origins (docs/api-guide.md › Browser clients (CORS)), through Hono's `cors`
 * middleware. `CORS_ALLOWED_ORIGINS` lists exact origins (scheme://host[:port], comma-separated; none by default).
 * For a listed origin every API response carries `Access-Control-Allow-Origin: <that origin>` and exposes the headers
 * a client reads; a preflight is answered 204 with the allowed methods and request headers, cached for 10 minutes.
 * Any other origin gets no CORS header at all, preflight included (the browser then refuses the call).
 *
 * The API is bearer-only (no cookies), so credentials are never allowed, and a `*` entry is ignored: a wildcard would
 * let every site in the world drive the API with a token it got hold of, and the answer for a credentialed request
 * would have to name the origin anyway. `npm start` and `npm run deploy:check` refuse such a list outright
 * (`corsOriginProblems`), so a mistyped entry is found before it silently allows nothing.
 *
 * Not here: the reader site (/site/…, and a portal's own domain, answered before this middleware runs) and /docs keep
 * their own headers; a WebSocket upgrade is not subject to CORS (the collaboration ticket that precedes it is).
 */
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import type { HonoEnv } from "../env";

const CORS_ALLOWED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const CORS_ALLOWED_HEADERS = [
  "Authorization",
  "Content-Type",
  "Idempotency-Key",
  "If-Match",
  "If-None-Match",
  "x-d1-bookmark",
];
const CORS_EXPOSED_HEADERS = ["ETag", "Retry-After", "x-d1-bookmark", "Location", "Content-Disposition"];
const CORS_MAX_AGE_SECONDS = 600;

/** An exact origin as a browser sends it in `Origin`: http(s), a host, an optional port, nothing else. */
function exactOrigin(entry: string): string | null {
  try {
    const url = new URL(entry);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    // `https://app.example/` (a trailing slash) is still that origin; a path, query, credentials or a fragment is not.
    return url.origin === entry.replace(/\/$/, "") ? url.origin : null;
  } catch {
    return null;
  }
}

/** The entries of a CORS_ALLOWED_ORIGINS value that are not an exact origin (`*` among them), for the startup checks. */
export function corsOriginProblems(value: string | undefined): string[] {
  return splitList(value).filter((entry) => exactOrigin(entry) === null);
}

function splitList(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

let parsedFrom: string | undefined;
let parsed = new Set<string>();

/** The allowed origins of a deployment: the exact origins of CORS_ALLOWED_ORIGINS; `*` and malformed entries allow nothing. */
export function allowedCorsOrigins(env: { CORS_ALLOWED_ORIGINS?: string }): Set<string> {
  const value = env.CORS_ALLOWED_ORIGINS ?? "";
  if (value !== parsedFrom) {
    parsed = new Set(splitList(value).flatMap((entry) => exactOrigin(entry) ?? []));
    parsedFrom = value;
    const ignored = corsOriginProblems(value);
    // Once per isolate and value, so `wrangler tail` shows why a listed app is still refused.
    if (ignored.length)
      console.warn(
        `CORS_ALLOWED_ORIGINS: ignoring ${ignored.map((e) => JSON.stringify(e)).join(", ")} (not an exact origin; "*" is never allowed)`,
      );
  }
  return parsed;
}

/** Paths that keep their own headers: the reader site and the API reference page. */
const OWN_HEADERS = /^\/(site(\/|$)|docs$)/;

const allowListed = cors({
  origin: (origin, c) => (allowedCorsOrigins(c.env as HonoEnv["Bindings"]).has(origin) ? origin : null),
  allowMethods: CORS_ALLOWED_METHODS,
  allowHeaders: CORS_ALLOWED_HEADERS,
  exposeHeaders: CORS_EXPOSED_HEADERS,
  maxAge: CORS_MAX_AGE_SECONDS,
  credentials: false,
});

export const apiCors: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const allowed = allowedCorsOrigins(c.env);
  if (allowed.size === 0 || OWN_HEADERS.test(c.req.path) || c.req.header("upgrade")?.toLowerCase() === "websocket")
    return next();
  const origin = c.req.header("origin");
  if (origin && allowed.has(origin)) return allowListed(c, next);
  await next();
  // The answer depends on Origin once any origin is allowed: caches must not hand this one to a listed origin.
  if (c.res.status === 101) return;
  try {
    c.res.headers.append("vary", "Origin");
  } catch {
    const copy = new Response(c.res.body, c.res);
    copy.headers.append("vary", "Origin");
    c.res = undefined;
    c.res = copy;
  }
};

type HeaderObject = { description?: string; schema?: unknown; $ref?: string };
type ResponseObject = { headers?: Record<string, HeaderObject> };
type OpenApiDocument = {
  paths?: Record<string, Record<string, { responses?: Record<string, ResponseObject> } | unknown>>;
  components?: Record<string, unknown>;
};

const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);

/** The CORS headers of an API response, as /openapi.json declares them (components.headers). */
const CORS_RESPONSE_HEADERS: Record<string, HeaderObject> = {
  "Access-Control-Allow-Origin": {
    description:
      "The calling page's origin, sent only when it is one of the deployment's CORS_ALLOWED_ORIGINS (exact origins, none by default; never `*`). " +
      "Absent for any other origin, which the browser then refuses.",
    schema: { type: "string", format: "uri", examples: ["https://app.example.com"] },
  },
  "Access-Control-Expose-Headers": {
    description: "For an allowed origin: the response headers a page may read.",
    schema: { type: "string", const: CORS_EXPOSED_HEADERS.join(",") },
  },
  Vary: {
    description: "Includes `Origin` whenever any origin is allowed: the answer depends on the calling page's origin.",
    schema: { type: "string", examples: ["Origin"] },
  },
};

/**
 * Declares the CORS response headers on every API response of the generated document (docs/api-guide.md › Browser
 * clients (CORS)): each response's headers refer to components.headers. The reader site and /docs, which send no
 * CORS headers, and the WebSocket upgrade (an operation answering 101) are left as they are.
 */
export function declareCorsHeaders<D>(document: D): D {
  const doc = document as OpenApiDocument;
  const components = (doc.components ??= {}) as { headers?: Record<string, HeaderObject> };
  components.headers = { ...components.headers, ...CORS_RESPONSE_HEADERS };
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    if (OWN_HEADERS.test(path)) continue;
    for (const [method, operation] of Object.entries(item)) {
      if (!HTTP_METHODS.has(method)) continue;
      const responses = (operation as { responses?: Record<string, ResponseObject> }).responses ?? {};
      // A WebSocket upgrade, answered or refused, is not subject to CORS (apiCors lets it pass untouched).
      if ("101" in responses) continue;
      for (const response of Object.values(responses)) {
        if ("$ref" in response) continue;
        const own = response.headers ?? {};
        const refs = Object.fromEntries(
          Object.keys(CORS_RESPONSE_HEADERS)
            .filter((name) => !Object.keys(own).some((k) => k.toLowerCase() === name.toLowerCase()))
            .map((name) => [name, { $ref: `#/components/headers/${name}` }]),
        );
        response.headers = { ...refs, ...own };
      }
    }
  }
  return document;
}
