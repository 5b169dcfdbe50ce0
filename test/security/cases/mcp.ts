import type { CaseFactory, SecurityCase } from "../types";

const MCP_HEADERS = { accept: "application/json, text/event-stream" };

/**
 * POST /mcp: a tool call about a record the caller cannot read is a tool error saying it is not found (the JSON-RPC
 * answer is 200, its result `isError`), exactly what a missing document gets.
 */
export const mcpCases: CaseFactory = async (t): Promise<SecurityCase[]> => [
  {
    name: "POST /mcp tools/call get_document",
    method: "POST",
    path: "/mcp",
    headers: MCP_HEADERS,
    body: {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "get_document", arguments: { documentId: t.docId } },
    },
    outsider: {
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        result: { isError: true, content: [{ type: "text", text: "NotFoundError: Document not found" }] },
      },
    },
  },
];
