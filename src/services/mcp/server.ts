/**
 * The MCP server (docs/api-guide.md › MCP): the tools of the contract with their fixed names, each calling the service
 * its REST route calls, under the same access checks, with the scope that route needs (src/auth/scopes.ts), on the
 * request's authenticated context. A refused call is a tool error (`isError`) naming the error class and reason.
 * `query_rows` lists rows page by page (filters and sorts arrive with row querying); `upsert_rows` creates rows
 * (matching on a key arrives with bulk writes); `get_changes` answers that the change feed is not there yet.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ApiError } from "../../errors";
import { requireScope, scopeOf } from "../../auth/scopes";
import { onShardOf, type ServiceContext } from "../context";
import { exportMarkdownDocument, importMarkdownDocument } from "../markdown/documents";
import { markdownToBlocks } from "../markdown/convert";
import { putContent } from "../content/content";
import { search } from "../search/search";
import { getTable, listTableIds } from "../tables/tables";
import { listRowsOfTable } from "../tables/rowReads";
import { bulkCreateRows } from "../tables/rows";

const Id = z.string().min(1).max(64);

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/** A tool's answer: the REST answer as JSON text (Markdown as is); an ApiError as a tool error naming it. */
async function answer(ctx: ServiceContext, operationId: string, run: () => Promise<unknown>): Promise<ToolResult> {
  try {
    requireScope(ctx.user.tokenScopes ?? null, scopeOf(operationId));
    const out = await run();
    return { content: [{ type: "text", text: typeof out === "string" ? out : JSON.stringify(out) }] };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = err.details?.length ? ` (${err.details.map((d) => `${d.path}: ${d.message}`).join("; ")})` : "";
    return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}${details}` }] };
  }
}

function documentTools(server: McpServer, ctx: ServiceContext) {
  server.registerTool(
    "search",
    {
      description: "Full-text search over the documents, tables and rows the caller can read (GET /search).",
      inputSchema: {
        q: z.string().min(1).max(1000),
        projectId: Id.optional(),
        limit: z.number().int().min(1).max(100).optional(),
      },
    },
    (a) => answer(ctx, "search", () => search(ctx, a)),
  );
  server.registerTool(
    "get_document",
    {
      description: "A rich-text document as Markdown (GET /document/{documentId}/export.md).",
      inputSchema: { documentId: Id },
    },
    (a) =>
      answer(ctx, "exportMarkdownDocument", async () => {
        const { markdown } = await exportMarkdownDocument(onShardOf(ctx, a.documentId), a.documentId);
        return markdown;
      }),
  );
  server.registerTool(
    "create_document",
    {
      description: "Creates a rich-text document from Markdown (POST /document/markdown).",
      inputSchema: {
        projectId: Id,
        name: z.string().min(1).max(500),
        markdown: z.string().max(1024 * 1024),
        parentId: Id.optional(),
      },
    },
    (a) => answer(ctx, "importMarkdownDocument", () => importMarkdownDocument(onShardOf(ctx, a.projectId), a)),
  );
  server.registerTool(
    "update_document",
    {
      description:
        "Replaces a document's content with Markdown (PUT /document/{documentId}/content); baseVersion is the version read (409 when stale).",
      inputSchema: {
        documentId: Id,
        markdown: z.string().max(1024 * 1024),
        baseVersion: z.number().int().min(0).optional(),
      },
    },
    (a) =>
      answer(ctx, "putContent", () =>
        putContent(onShardOf(ctx, a.documentId), {
          documentId: a.documentId,
          blocks: markdownToBlocks(a.markdown),
          ...(a.baseVersion !== undefined && { baseVersion: a.baseVersion }),
        }),
      ),
  );
}

function tableTools(server: McpServer, ctx: ServiceContext) {
  server.registerTool(
    "list_tables",
    { description: "The tables of a project (GET /table/all/{projectId}/id).", inputSchema: { projectId: Id } },
    (a) => answer(ctx, "listTableIds", () => listTableIds(onShardOf(ctx, a.projectId), a.projectId)),
  );
  server.registerTool(
    "query_rows",
    {
      description:
        "One page of a table's rows in order (GET /table/{tableId}/rows); pass nextCursor back for the next page.",
      inputSchema: {
        tableId: Id,
        limit: z.number().int().min(1).max(1000).optional(),
        cursor: z.string().max(200).optional(),
      },
    },
    (a) =>
      answer(ctx, "listRows", () =>
        listRowsOfTable(onShardOf(ctx, a.tableId), {
          tableId: a.tableId,
          limit: a.limit ?? 100,
          ...(a.cursor && { cursor: a.cursor }),
        }),
      ),
  );
  server.registerTool(
    "upsert_rows",
    {
      description:
        "Creates rows, all or nothing (POST /table/{tableId}/rows); each row is { cells: { columnId: value } }.",
      inputSchema: {
        tableId: Id,
        rows: z
          .array(z.object({ cells: z.record(z.string(), z.unknown()) }))
          .min(1)
          .max(1000),
      },
    },
    (a) =>
      answer(ctx, "bulkCreateRows", () =>
        bulkCreateRows(onShardOf(ctx, a.tableId), { tableId: a.tableId, rows: a.rows.map((r) => r.cells) }),
      ),
  );
  server.registerTool(
    "get_changes",
    {
      description: "The change feed of a project (not available yet on this deployment).",
      inputSchema: { projectId: Id },
    },
    () =>
      answer(ctx, "listDocuments", async () => {
        throw new ApiError("NotFoundError", "The change feed is not available on this deployment yet");
      }),
  );
}

/** Documents as Markdown and tables as JSON, read through the same services as the tools. */
function resources(server: McpServer, ctx: ServiceContext) {
  const text = (uri: URL, mimeType: string, value: string) => ({
    contents: [{ uri: uri.href, mimeType, text: value }],
  });
  const unwrap = async (operationId: string, run: () => Promise<unknown>) => {
    requireScope(ctx.user.tokenScopes ?? null, scopeOf(operationId));
    return run();
  };
  server.registerResource(
    "document",
    new ResourceTemplate("document://{documentId}", { list: undefined }),
    { description: "A rich-text document as Markdown", mimeType: "text/markdown" },
    async (uri, { documentId }) => {
      const id = String(documentId);
      const { markdown } = (await unwrap("exportMarkdownDocument", () =>
        exportMarkdownDocument(onShardOf(ctx, id), id),
      )) as {
        markdown: string;
      };
      return text(uri, "text/markdown", markdown);
    },
  );
  server.registerResource(
    "table",
    new ResourceTemplate("table://{tableId}", { list: undefined }),
    { description: "A table's definition as JSON", mimeType: "application/json" },
    async (uri, { tableId }) => {
      const id = String(tableId);
      const table = await unwrap("getTable", () => getTable(onShardOf(ctx, id), id));
      return text(uri, "application/json", JSON.stringify(table));
    },
  );
}

/** A server for one request (stateless Streamable HTTP): its tools act as the request's authenticated caller. */
export function mcpServerFor(ctx: ServiceContext): McpServer {
  const server = new McpServer({ name: "workspace-edge", version: "1.0.0" });
  documentTools(server, ctx);
  tableTools(server, ctx);
  resources(server, ctx);
  return server;
}
