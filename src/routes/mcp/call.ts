import { z } from "@hono/zod-openapi";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { ctxOf, defineRoute } from "../../http/route";
import { ApiError } from "../../errors";
import { errorResponses, jsonBody, type Router } from "../../openapi";
import { mcpServerFor } from "./tools";

/** A JSON-RPC message or batch of the Model Context Protocol; the SDK's transport validates it further. */
const McpMessage = z
  .union([
    z.object({ jsonrpc: z.literal("2.0") }).passthrough(),
    z
      .array(z.object({ jsonrpc: z.literal("2.0") }).passthrough())
      .min(1)
      .max(100),
  ])
  .openapi("McpMessage", { description: "A JSON-RPC 2.0 message (or batch) of the Model Context Protocol" });

const route = defineRoute({
  operationId: "callMcp",
  auth: "token",
  shard: "service",
  // Authentication, then what the tool's REST route costs (a document write: access, content, commit).
  roundTrips: 5,
  bodyLimit: 2 * 1024 * 1024,
  method: "post",
  path: "/mcp",
  tags: ["Identity"],
  summary: "Model Context Protocol server (Streamable HTTP)",
  description:
    "An MCP endpoint for AI agents (docs/api-guide.md › MCP), stateless Streamable HTTP: tools `search`, `get_document`, `create_document`, " +
    "`update_document`, `list_tables`, `query_rows`, `upsert_rows`, `get_changes` and resources `document://{documentId}`, `table://{tableId}`. " +
    "Bearer: a scoped token or an OAuth access token; each tool needs the scope of the REST route it mirrors, and a refused call is a tool error.",
  request: jsonBody(McpMessage),
  responses: {
    200: {
      description: "The JSON-RPC answer (JSON, or an event stream when the client asks for one)",
      content: { "application/json": { schema: z.unknown() }, "text/event-stream": { schema: z.string() } },
    },
    202: { description: "A notification or response was accepted" },
    ...errorResponses(),
  },
});

export function registerCallMcp(app: Router) {
  app.openapi(route, async (c) => {
    const server = mcpServerFor(ctxOf(c));
    // Stateless: one server and transport per request, answering in JSON.
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    // Answers are JSON whatever the client accepts (enableJsonResponse), so a client that omits text/event-stream is served too.
    const headers = new Headers(c.req.raw.headers);
    headers.set("accept", "application/json, text/event-stream");
    const request = new Request(c.req.raw.url, { method: "POST", headers });
    const res = await transport.handleRequest(request, { parsedBody: c.req.valid("json") });
    if (res.status < 400) return res as never;
    // A message the protocol refuses answers in the error model (docs/api-guide.md › Errors), not the SDK's shape.
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    const message = body?.error?.message ?? "The MCP message was refused";
    throw new ApiError(res.status === 415 ? "UnsupportedMediaTypeError" : "ValidationError", message);
  });
}
