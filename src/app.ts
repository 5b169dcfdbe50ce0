import { OpenAPIHono } from "@hono/zod-openapi";
import { requestId } from "hono/request-id";
import type { MiddlewareHandler } from "hono";
import type { HonoEnv } from "./env";
import { ApiError, type ErrorDetail } from "./errors";
import { errorBody } from "./http/errors";
import { declaredTags } from "./openapi";
import { d1Session } from "./http/session";
import { apiCors, declareCorsHeaders } from "./http/cors";
import { renderError } from "./http/errors";
import { authenticatedPaths } from "./http/route";
import { authenticateNow } from "./http/routeAuth";
import { registerRoutes } from "./routes";
import { describeDiscoveryRoutes, registerHealth } from "./routes/discovery/health";
import { portalHostMiddleware, registerSite } from "./site/handler";
import { apiReferencePage } from "./routes/discovery/docs";

/** The top-level members of /openapi.json (docs/api-guide.md › Discovery); `tags` are those the registered operations use. */
export function documentConfig(tags: string[], environment = "production") {
  return {
    openapi: "3.1.0",
    info: {
      title: "Collaborative Workspace Service",
      version: "current",
      description: "HTTP/JSON API for organizations, workspaces, projects, documents, tables and more.",
    },
    // Relative: every operation lives on the origin that served this document, whatever the deployment's host.
    // x-internal: false — a public API (OWASP API9 asks each server to name its audience and environment).
    servers: [
      {
        url: "/",
        description: `This service's ${environment} deployment: the origin that served this document`,
        "x-internal": false,
      },
    ],
    tags: declaredTags(tags),
    security: [{ bearer: [] }],
  };
}

/** Where a validated value came from, as a client reads it in a message ("Invalid request body: name: …"). */
const TARGET_LABEL: Record<string, string> = {
  json: "request body",
  form: "request body",
  query: "query parameters",
  param: "path parameters",
  header: "headers",
  cookie: "cookies",
};

/**
 * Every response says `X-Content-Type-Options: nosniff` (docs/api-guide.md › Files, export and media): a browser then never runs
 * stored bytes (an audio file, a DOCX, a PDF) as anything but the type they are served as. A WebSocket upgrade (101)
 * is left as it is; a response with immutable headers (a passed-through fetch) is copied first.
 */
const noSniff: MiddlewareHandler<HonoEnv> = async (c, next) => {
  await next();
  if (c.res.status === 101) return;
  try {
    c.res.headers.set("x-content-type-options", "nosniff");
  } catch {
    const copy = new Response(c.res.body, c.res);
    copy.headers.set("x-content-type-options", "nosniff");
    c.res = copy;
  }
};

/** zod failures anywhere (body, query, path) become 400 ValidationError with one detail per problem. */
export function createRouter() {
  return new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        // An unknown member is reported on its parent object; name each member, so the client sees what to drop.
        const details: ErrorDetail[] = result.error.issues.flatMap((issue) =>
          issue.code === "unrecognized_keys"
            ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join("."), message: "Unknown field" }))
            : [
                {
                  path: issue.path.map(String).join(".") || (result.target === "json" ? "body" : result.target),
                  message: issue.message,
                },
              ],
        );
        const where = TARGET_LABEL[result.target] ?? result.target;
        throw new ApiError(
          "ValidationError",
          `Invalid ${where}: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`,
          { details },
        );
      }
    },
  });
}

export function buildApp() {
  const app = createRouter();

  app.use("*", requestId());
  app.use("*", noSniff);
  app.use("*", d1Session);
  // A request whose Host is a portal's own domain gets the reader site at / and /{documentId} (docs/api-guide.md › Automations, published portals, collaborative editing);
  // API paths are never taken over. The middleware only looks at single-segment paths, so the API's single-segment
  // routes (filled in once every route is registered) answer it with one Set lookup instead of a scan of every route.
  const singleSegmentApiPaths = new Set<string>();
  app.use(
    "*",
    portalHostMiddleware(
      (path) => singleSegmentApiPaths.has(path) || (singleSegmentApiPaths.has("*") && routesFor(path).length > 0),
    ),
  );
  // CORS for the origins of CORS_ALLOWED_ORIGINS (src/http/cors.ts): after the portal-domain reader site, which keeps its own headers.
  app.use("*", apiCors);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A personal access token: Authorization: Bearer cws_…",
  });

  registerRoutes(app);
  registerSite(app);

  registerHealth(app);
  describeDiscoveryRoutes(app);
  const usedTags = app.openAPIRegistry.definitions.flatMap((d) => ("route" in d ? (d.route.tags ?? []) : []));
  app.get("/openapi.json", (c) =>
    c.json(declareCorsHeaders(app.getOpenAPI31Document(documentConfig(usedTags, c.env.ENVIRONMENT)))),
  );
  app.get("/docs", apiReferencePage);

  const routePatterns = app.routes.map((r) => ({ method: r.method, path: r.path, re: pathToRegex(r.path) }));
  for (const r of routePatterns) {
    if (r.method === "ALL" || !/^\/[^/]*$/.test(r.path)) continue;
    // A single-segment route with a parameter would match any such path: fall back to the scan.
    singleSegmentApiPaths.add(r.path.includes(":") || r.path.includes("*") ? "*" : r.path);
  }
  const authenticatedRoutingPaths = new Set([...authenticatedPaths].map((p) => p.replaceAll(/\/{(.+?)}/g, "/:$1")));
  function routesFor(path: string) {
    return routePatterns.filter((r) => r.method !== "ALL" && r.re.test(path));
  }

  app.notFound(async (c) => {
    const matching = routesFor(c.req.path);
    const methods = new Set(matching.map((r) => r.method));
    if (methods.size > 0) {
      // Authentication comes first on a known path of an authenticated resource (401 before 405).
      if (matching.some((r) => authenticatedRoutingPaths.has(r.path))) await authenticateNow(c, async () => undefined);
      return c.json(errorBody("MethodNotAllowedError", `${c.req.method} is not allowed on ${c.req.path}`), 405, {
        Allow: [...methods].join(", "),
      });
    }
    return c.json(errorBody("NotFoundError", `No route for ${c.req.method} ${c.req.path}`), 404);
  });

  app.onError(renderError);

  return app;
}

function pathToRegex(path: string): RegExp {
  const pattern = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}$`);
}
