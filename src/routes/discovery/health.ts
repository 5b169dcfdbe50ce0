import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { jsonResponse, onlyErrorResponses, type Router } from "../../openapi";

/** The marker `npm start` checks in GET /health (scripts/lib/health.mjs). */
export const SERVICE_NAME = "workspace-edge";

const route = defineRoute({
  operationId: "health",
  auth: "public",
  method: "get",
  path: "/health",
  tags: ["Discovery"],
  summary: "Liveness (no token needed)",
  description:
    "`service` names this service, so a script waiting for it can tell it from another server on the same port.",
  security: [],
  responses: {
    200: jsonResponse(z.object({ status: z.literal("ok"), service: z.literal(SERVICE_NAME) })),
    ...onlyErrorResponses("InternalError"),
  },
});

export function registerHealth(app: Router) {
  app.openapi(route, (c) => c.json({ status: "ok" as const, service: SERVICE_NAME }, 200));
}

/** /openapi.json and /docs are served by the app itself; listed here so the document covers every route. */
export function describeDiscoveryRoutes(app: Router) {
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/openapi.json",
    tags: ["Discovery"],
    summary: "This OpenAPI 3.1.0 document (no token needed)",
    description:
      "The OpenAPI 3.1.0 description of every operation, built from the same definitions that validate requests; public, not rate limited.",
    operationId: "getOpenApiDocument",
    security: [],
    "x-d1-round-trips": 0,
    responses: {
      200: {
        description: "The OpenAPI document",
        content: { "application/json": { schema: z.record(z.string(), z.unknown()) } },
      },
      ...onlyErrorResponses("InternalError"),
    },
  });
  app.openAPIRegistry.registerPath({
    method: "get",
    path: "/docs",
    tags: ["Discovery"],
    summary: "Interactive API reference over /openapi.json (no token needed)",
    description:
      "An HTML page rendering this document as an interactive reference; it loads nothing from other origins.",
    operationId: "getApiReference",
    security: [],
    "x-d1-round-trips": 0,
    responses: {
      200: { description: "HTML page", content: { "text/html": { schema: z.string() } } },
      ...onlyErrorResponses("InternalError"),
    },
  });
}
