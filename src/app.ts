import { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import { requestId } from "hono/request-id";
import { bodyLimit } from "hono/body-limit";
import type { HonoEnv } from "./env";
import { ApiError, errorBody, type ErrorDetail } from "./errors";
import { createDb } from "./db/client";
import { requireUser } from "./auth/authenticate";
import { registerRoutes } from "./routes";
import { describeDiscoveryRoutes, registerHealth } from "./routes/discovery/health";
import { portalHostMiddleware, registerSite } from "./site/handler";

/** zod failures anywhere (body, query, path) become 400 ValidationError with one detail per problem. */
export function createRouter() {
  return new OpenAPIHono<HonoEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        // An unknown member is reported on its parent object; name each member, so the client sees what to drop.
        const details: ErrorDetail[] = result.error.issues.flatMap((issue) =>
          issue.code === "unrecognized_keys"
            ? issue.keys.map((key) => ({ path: [...issue.path, key].map(String).join("."), message: "Unknown field" }))
            : [{ path: issue.path.map(String).join(".") || result.target, message: issue.message }],
        );
        throw new ApiError("ValidationError", `Invalid ${result.target}: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`, { details });
      }
    },
  });
}

const MiB = 1024 * 1024;

/** Paths served without a bearer token; everything else passes through requireUser first. */
const PUBLIC_PATHS = [/^\/health$/, /^\/openapi\.json$/, /^\/docs\/?$/, /^\/admin\//, /^\/media\/audio\/[^/]+\/content$/, /^\/site\//];

export function buildApp() {
  const app = createRouter();

  app.use("*", requestId());
  app.use("*", async (c, next) => {
    c.set("db", createDb(c.env.DB));
    await next();
  });
  // A request whose Host is a portal's own domain gets the reader site at / and /{documentId} (API.md §15).
  app.use("*", portalHostMiddleware((path) => isKnownPath(path)));
  app.use("*", async (c, next) => {
    // JSON bodies are capped (API.md §12); raw uploads enforce their own limits with 411/413 per route.
    if (!/json/i.test(c.req.header("content-type") ?? "")) return next();
    const maxSize = c.req.path === "/export/doc-to-pdf" ? 64 * MiB : 10 * MiB;
    return bodyLimit({
      maxSize,
      onError: () => {
        throw new ApiError("PayloadTooLargeError", `JSON bodies on this route are limited to ${maxSize / MiB} MiB`);
      },
    })(c, next);
  });
  app.use("*", async (c, next) => {
    if (PUBLIC_PATHS.some((re) => re.test(c.req.path)) || !isKnownPath(c.req.path)) return next();
    return requireUser(c, next);
  });

  app.openAPIRegistry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A personal access token: Authorization: Bearer cws_…",
  });

  registerRoutes(app);
  registerSite(app);

  registerHealth(app);
  describeDiscoveryRoutes(app);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Collaborative Workspace Service", version: "current", description: "HTTP/JSON API for organizations, workspaces, projects, documents, tables and more." },
    security: [{ bearer: [] }],
  });
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Collaborative Workspace Service API" }));

  const routePatterns = app.routes.map((r) => ({ method: r.method, re: pathToRegex(r.path) }));
  function methodsFor(path: string) {
    return new Set(routePatterns.filter((r) => r.method !== "ALL" && r.re.test(path)).map((r) => r.method));
  }
  knownPathCheck = (path) => methodsFor(path).size > 0;

  app.notFound((c) => {
    const methods = methodsFor(c.req.path);
    if (methods.size > 0) {
      return c.json(errorBody("MethodNotAllowedError", `${c.req.method} is not allowed on ${c.req.path}`), 405, { Allow: [...methods].join(", ") });
    }
    return c.json(errorBody("NotFoundError", `No route for ${c.req.method} ${c.req.path}`), 404);
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) {
      return c.json(errorBody(err.code, err.message, err.details), err.status, err.headers);
    }
    // Hono's own exceptions (e.g. malformed JSON from the body parser) carry a client status.
    const status = (err as { status?: number }).status;
    if (typeof status === "number" && status >= 400 && status < 500) {
      const code = status === 413 ? "PayloadTooLargeError" : status === 415 ? "UnsupportedMediaTypeError" : "ValidationError";
      const message = status === 400 ? "The request body is not valid JSON" : err.message;
      return c.json(errorBody(code, message), code === "ValidationError" ? 400 : (status as 413 | 415));
    }
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, error: String(err), stack: (err as Error).stack }));
    return c.json(errorBody("InternalError", "An unexpected error occurred; it has been logged"), 500);
  });

  return app;
}

let knownPathCheck: (path: string) => boolean = () => true;
function isKnownPath(path: string) {
  return knownPathCheck(path);
}

function pathToRegex(path: string): RegExp {
  const pattern = path
    .split("/")
    .map((seg) => (seg.startsWith(":") ? "[^/]+" : seg === "*" ? ".*" : seg.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
    .join("/");
  return new RegExp(`^${pattern}$`);
}
