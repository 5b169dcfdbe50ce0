/**
 * The MCP server (docs/api-guide.md › MCP): the tools of the contract with their fixed names, each calling the service
 * its REST route calls, under the same access checks, with the scope that route needs (src/auth/scopes.ts), on the
 * request's authenticated context. A refused call is a tool error (`isError`) naming the error class and reason.
 * `query_rows` takes POST /table/{tableId}/query's members; `upsert_rows` upserts on `keyColumnIds` (POST
 * /table/{tableId}/rows/upsert) or, without them, creates; `get_changes` takes GET /changes's members.
 */
import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { ApiError } from "../../errors";
import { requireScope, scopeOf } from "../../auth/scopes";
import type { ServiceContext } from "../../services/context";
import { exportMarkdownDocument, importMarkdownDocument } from "../../services/markdown/documents";
import { markdownToBlocks } from "../../services/markdown/convert";
import { putContent } from "../../services/content/content";
import { MAX_SEARCH_LIMIT, search } from "../../services/search/search";
import { MAX_QUERY_LENGTH } from "../../services/search/query";
import { getTable, listTableIds } from "../../services/tables/tables";
import { queryRows } from "../../services/tables/query/query";
import { upsertRows } from "../../services/tables/bulk/upsert";
import { queryFromBody, RowQueryBody } from "../rows/querySchema";
import { bulkCreateRows } from "../../services/tables/rows";
import { listChanges } from "../../services/changes/feed";

const Id = z.string().min(1).max(64);

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };

/** A tool's answer: the REST answer as JSON text (Markdown as is); an ApiError as a tool error naming it. */
async function answer(caller: ServiceContext, operationId: string, run: () => Promise<unknown>): Promise<ToolResult> {
  try {
    requireScope(caller.user.tokenScopes ?? null, scopeOf(operationId));
    const out = await run();
    return { content: [{ type: "text", text: typeof out === "string" ? out : JSON.stringify(out) }] };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const detail = (d: NonNullable<ApiError["details"]>[number]) =>
      `${d.path}: ${d.message}${d.oldestCursor ? ` (oldestCursor: ${d.oldestCursor})` : ""}`;
    const details = err.details?.length ? ` (${err.details.map(detail).join("; ")})` : "";
    return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}${details}` }] };
  }
}

function documentTools(server: McpServer, caller: ServiceContext) {
  server.registerTool(
    "search",
    {
      description:
        "Full-text search over the documents, files, rows and comments the caller can read, ranked (GET /search: " +
        "the same query syntax and members; pass nextCursor back as cursor for the next page).",
      inputSchema: {
        q: z.string().min(1).max(MAX_QUERY_LENGTH),
        workspaceId: Id.optional(),
        projectId: Id.optional(),
        type: z.enum(["document", "file", "row", "comment"]).optional(),
        limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional(),
        cursor: z.string().min(1).max(200).optional(),
      },
    },
    (a) => answer(caller, "search", () => search(caller, a)),
  );
  server.registerTool(
    "get_document",
    {
      description: "A rich-text document as Markdown, as the REST operation exportMarkdownDocument answers it.",
      inputSchema: { documentId: Id },
    },
    (a) =>
      answer(caller, "exportMarkdownDocument", async () => {
        const { markdown } = await exportMarkdownDocument(caller.on(a.documentId), {
          documentId: a.documentId,
        });
        return markdown;
      }),
  );
}

function documentWriteTools(server: McpServer, caller: ServiceContext) {
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
    (a) => answer(caller, "importMarkdownDocument", () => importMarkdownDocument(caller.on(a.projectId), a)),
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
      answer(caller, "putContent", () =>
        putContent(caller.on(a.documentId), {
          documentId: a.documentId,
          blocks: markdownToBlocks(a.markdown),
          ...(a.baseVersion !== undefined && { baseVersion: a.baseVersion }),
        }),
      ),
  );
}

function tableTools(server: McpServer, caller: ServiceContext) {
  server.registerTool(
    "list_tables",
    { description: "The tables of a project (GET /table/all/{projectId}/id).", inputSchema: { projectId: Id } },
    (a) => answer(caller, "listTableIds", () => listTableIds(caller.on(a.projectId), { projectId: a.projectId })),
  );
  server.registerTool(
    "query_rows",
    {
      description:
        "Rows of a table with POST /table/{tableId}/query's members (filter, sort, fields, search, limit, cursor); pass nextCursor back for the next page.",
      inputSchema: { tableId: Id, query: RowQueryBody.optional() },
    },
    (a) =>
      answer(caller, "queryRows", () =>
        queryRows(caller.on(a.tableId), { tableId: a.tableId, query: queryFromBody(a.query ?? {}) }),
      ),
  );
  server.registerTool(
    "upsert_rows",
    {
      description:
        "Writes rows all or nothing; each row is { cells: { columnId: value } }. With keyColumnIds a row matching a live row on them updates it " +
        "(POST /table/{tableId}/rows/upsert), otherwise rows are created (POST /table/{tableId}/rows).",
      inputSchema: {
        tableId: Id,
        keyColumnIds: z.array(Id).min(1).max(5).optional(),
        rows: z
          .array(z.object({ cells: z.record(z.string(), z.unknown()) }))
          .min(1)
          .max(1000),
      },
    },
    (a) =>
      a.keyColumnIds
        ? answer(caller, "upsertRows", () =>
            upsertRows(caller.on(a.tableId), {
              tableId: a.tableId,
              keyColumnIds: a.keyColumnIds!,
              rows: a.rows as never,
            }),
          )
        : answer(caller, "bulkCreateRows", () =>
            bulkCreateRows(caller.on(a.tableId), { tableId: a.tableId, rows: a.rows.map((r) => r.cells) }),
          ),
  );
}

function changeTools(server: McpServer, caller: ServiceContext) {
  server.registerTool(
    "get_changes",
    {
      description:
        "The change feed of a table, project or workspace (GET /changes): exactly one of tableId, projectId, workspaceId; " +
        "pass nextCursor back as cursor to continue (`latest` starts at the end). A cursor past retention is a GoneError naming the oldest cursor kept.",
      inputSchema: {
        tableId: Id.optional(),
        projectId: Id.optional(),
        workspaceId: Id.optional(),
        cursor: z.string().min(1).max(200).optional(),
        limit: z.number().int().min(1).max(1000).optional(),
      },
    },
    (a) => answer(caller, "listChanges", () => listChanges(caller, { ...a, limit: a.limit ?? 100 })),
  );
}

/** Documents as Markdown and tables as JSON, read through the same services as the tools. */
function resources(server: McpServer, caller: ServiceContext) {
  const text = (uri: URL, mimeType: string, value: string) => ({
    contents: [{ uri: uri.href, mimeType, text: value }],
  });
  const unwrap = async (operationId: string, run: () => Promise<unknown>) => {
    requireScope(caller.user.tokenScopes ?? null, scopeOf(operationId));
    return run();
  };
  server.registerResource(
    "document",
    new ResourceTemplate("document://{documentId}", { list: undefined }),
    { description: "A rich-text document as Markdown", mimeType: "text/markdown" },
    async (uri, { documentId }) => {
      const id = String(documentId);
      const { markdown } = (await unwrap("exportMarkdownDocument", () =>
        exportMarkdownDocument(caller.on(id), { documentId: id }),
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
      const table = await unwrap("getTable", () => getTable(caller.on(id), { tableId: id }));
      return text(uri, "application/json", JSON.stringify(table));
    },
  );
}

/** A server for one request (stateless Streamable HTTP): its tools act as the request's authenticated caller. */
export function mcpServerFor(caller: ServiceContext): McpServer {
  const server = new McpServer({ name: "workspace-edge", version: "1.0.0" });
  documentTools(server, caller);
  documentWriteTools(server, caller);
  tableTools(server, caller);
  changeTools(server, caller);
  resources(server, caller);
  return server;
}
