/**
 * The MCP server at POST /mcp (docs/api-guide.md › MCP), driven by the SDK's own Client over Streamable HTTP through
 * the real Worker: the fixed tool names, documents read and written as Markdown, tables and rows, scoped tokens
 * refused as tool errors naming the scope, and records outside a token's resources answered as missing.
 */
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

async function connect(token: string): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(`${BASE}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    fetch: (url, init) => SELF.fetch(url, init),
  });
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };
const text = (r: unknown) => (r as ToolText).content.map((c) => c.text).join("");

const scoped = async (scopes: string[], resources?: string[]) =>
  (
    await ok("POST", "/token", {
      token: t.owner.token,
      body: { name: "agent", scopes, ...(resources && { resources }) },
    })
  ).data.token as string;

describe("MCP", () => {
  it("lists the contract's tools and resource templates", async () => {
    const client = await connect(t.owner.token);
    const tools = (await client.listTools()).tools.map((x) => x.name).sort();
    expect(tools).toEqual(
      [
        "create_document",
        "get_changes",
        "get_document",
        "list_tables",
        "query_rows",
        "search",
        "update_document",
        "upsert_rows",
      ].sort(),
    );
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((x) => x.uriTemplate).sort();
    expect(templates).toEqual(["document://{documentId}", "table://{tableId}"]);
    await client.close();
  });

  it("creates, reads and updates a document as Markdown through the same services as REST", async () => {
    const client = await connect(await scoped(["documents:write"]));
    const created = await client.callTool({
      name: "create_document",
      arguments: { projectId: t.projectId, name: "Agent notes", markdown: "# Plan\n\nShip **it**.\n" },
    });
    expect(created.isError).toBeFalsy();
    const { document, version } = JSON.parse(text(created));
    expect(version).toBe(1);
    const read = await client.callTool({ name: "get_document", arguments: { documentId: document._id } });
    expect(text(read)).toBe("# Plan\n\nShip **it**.\n");
    // The REST route sees the same document.
    expect((await ok("GET", `/document/${document._id}`, { token: t.owner.token })).data.name).toBe("Agent notes");
    const updated = await client.callTool({
      name: "update_document",
      arguments: { documentId: document._id, markdown: "Done.\n", baseVersion: 1 },
    });
    expect(JSON.parse(text(updated)).version).toBe(2);
    const stale = await client.callTool({
      name: "update_document",
      arguments: { documentId: document._id, markdown: "Late.\n", baseVersion: 1 },
    });
    expect(stale.isError).toBe(true);
    expect(text(stale)).toMatch(/^ConflictError/);
    const resource = await client.readResource({ uri: `document://${document._id}` });
    expect((resource.contents[0] as { text: string }).text).toBe("Done.\n");
    await client.close();
  });

  it("lists tables, creates rows and pages through them", async () => {
    const table = (
      await ok("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "Tasks" } })
    ).data;
    const column = (
      await ok("POST", `/table/${table._id}/column`, {
        token: t.owner.token,
        body: { name: "Title", data: { type: "text" } },
      })
    ).data;
    const client = await connect(await scoped(["tables:write"]));
    const tables = JSON.parse(
      text(await client.callTool({ name: "list_tables", arguments: { projectId: t.projectId } })),
    );
    expect(tables).toContain(table._id);
    const upserted = await client.callTool({
      name: "upsert_rows",
      arguments: { tableId: table._id, rows: [{ cells: { [column._id]: "one" } }, { cells: { [column._id]: "two" } }] },
    });
    expect(upserted.isError, text(upserted)).toBeFalsy();
    const queried = await client.callTool({
      name: "query_rows",
      arguments: {
        tableId: table._id,
        query: { filter: { and: [{ columnId: column._id, op: "eq", value: "two" }] } },
      },
    });
    expect(queried.isError, text(queried)).toBeFalsy();
    const page = JSON.parse(text(queried));
    expect(JSON.stringify(page.data)).toContain("two");
    expect(JSON.stringify(page.data)).not.toContain('"one"');
    // Keyed: the row whose Title is "one" is updated, a new key creates a row.
    const keyed = await client.callTool({
      name: "upsert_rows",
      arguments: {
        tableId: table._id,
        keyColumnIds: [column._id],
        rows: [{ cells: { [column._id]: "one" } }, { cells: { [column._id]: "three" } }],
      },
    });
    expect(keyed.isError, text(keyed)).toBeFalsy();
    const result = JSON.parse(text(keyed)).data;
    expect([result.updated.length, result.created.length]).toEqual([1, 1]);
    await client.close();
  });

  it("refuses a tool outside the token's scopes as a tool error naming the scope, and hides records outside its resources", async () => {
    const reader = await connect(await scoped(["documents:read"], [t.projectId]));
    const refused = await reader.callTool({
      name: "create_document",
      arguments: { projectId: t.projectId, name: "x", markdown: "x" },
    });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("needs documents:write");
    expect(text(await reader.callTool({ name: "get_document", arguments: { documentId: t.docId } }))).not.toMatch(
      /Error/,
    );
    const other = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Elsewhere" } })
    ).data._id;
    const otherDoc = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: other, name: "Secret", type: "DOCUMENT" },
      })
    ).data._id;
    const hidden = await reader.callTool({ name: "get_document", arguments: { documentId: otherDoc } });
    expect(hidden.isError).toBe(true);
    expect(text(hidden)).toMatch(/^NotFoundError/);
    await reader.close();
  });

  it("get_changes follows the change feed as GET /changes does: scope, access as absence, 410 as a tool error", async () => {
    const table = (await ok("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "Feed" } }))
      .data;
    const column = (
      await ok("POST", `/table/${table._id}/column`, {
        token: t.owner.token,
        body: { name: "Title", data: { type: "text" } },
      })
    ).data;
    const agent = await connect(await scoped(["tables:write", "changes:read"]));
    const start = JSON.parse(
      text(await agent.callTool({ name: "get_changes", arguments: { tableId: table._id, cursor: "latest" } })),
    );
    expect(start.data).toEqual([]);
    const written = await agent.callTool({
      name: "upsert_rows",
      arguments: { tableId: table._id, rows: [{ cells: { [column._id]: "from the agent" } }] },
    });
    expect(written.isError, text(written)).toBeFalsy();
    const changes = await agent.callTool({
      name: "get_changes",
      arguments: { tableId: table._id, cursor: start.nextCursor, limit: 10 },
    });
    expect(changes.isError, text(changes)).toBeFalsy();
    const page = JSON.parse(text(changes));
    const created = page.data.filter((e: { kind: string }) => e.kind === "row.created");
    expect(created).toHaveLength(1);
    expect(JSON.stringify(created[0].changes)).toContain("from the agent");
    // The same page as the REST route answers, and the project's feed holds the entry too.
    const rest = await ok("GET", `/changes?tableId=${table._id}&cursor=${start.nextCursor}&limit=10`, {
      token: t.owner.token,
    });
    expect(rest.data.map((e: { recordId: string }) => e.recordId)).toEqual(
      page.data.map((e: { recordId: string }) => e.recordId),
    );
    const project = JSON.parse(
      text(await agent.callTool({ name: "get_changes", arguments: { projectId: t.projectId, limit: 1000 } })),
    );
    expect(project.data.map((e: { recordId: string }) => e.recordId)).toContain(created[0].recordId);
    // A cursor past retention: GoneError with the oldest cursor still kept.
    const [seq, recordId] = atob(page.nextCursor.replace(/-/g, "+").replace(/_/g, "/")).split(".");
    const old = btoa(`${seq}.${recordId}.${Date.now() - 31 * 86_400_000}`)
      .replace(/\+/g, "-")
      .replace(/\//g, "_")
      .replace(/=+$/, "");
    const gone = await agent.callTool({ name: "get_changes", arguments: { tableId: table._id, cursor: old } });
    expect(gone.isError).toBe(true);
    expect(text(gone)).toMatch(/^GoneError/);
    expect(text(gone)).toContain("oldestCursor");
    const twoScopes = await agent.callTool({
      name: "get_changes",
      arguments: { tableId: table._id, projectId: t.projectId },
    });
    expect(text(twoScopes)).toMatch(/^ValidationError/);
    await agent.close();

    // Without changes:read the tool is refused, naming the scope.
    const noScope = await connect(await scoped(["tables:read"]));
    const refused = await noScope.callTool({ name: "get_changes", arguments: { tableId: table._id } });
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("needs changes:read");
    await noScope.close();

    // An outsider's scope id answers as absence.
    const outsider = await connect(t.outsider.token);
    for (const args of [{ tableId: table._id }, { projectId: t.projectId }, { workspaceId: t.workspaceId }]) {
      const hidden = await outsider.callTool({ name: "get_changes", arguments: args });
      expect(hidden.isError).toBe(true);
      expect(text(hidden)).toMatch(/^NotFoundError/);
    }
    await outsider.close();
  });

  it("search finds comments and pages by cursor, with GET /search's members and bounds", async () => {
    const word = `mcpword${crypto
      .randomUUID()
      .replace(/[^a-f]/g, "")
      .slice(0, 8)}`;
    const comment = (
      await ok("POST", `/document/${t.docId}/comment`, { token: t.owner.token, body: { body: `About ${word} here` } })
    ).data;
    const client = await connect(t.owner.token);
    const found = JSON.parse(
      text(await client.callTool({ name: "search", arguments: { q: word, projectId: t.projectId, type: "comment" } })),
    );
    expect(found.data.map((h: { kind: string; _id: string }) => [h.kind, h._id])).toEqual([["comment", comment._id]]);
    expect(found.nextCursor).toBeNull();
    // Beyond GET /search's limit: refused as the REST route refuses it, not silently cut.
    const tooMany = (await client.callTool({ name: "search", arguments: { q: word, limit: 51 } })) as ToolText;
    expect(tooMany.isError).toBe(true);
  });

  it("needs a valid bearer token (401 before any MCP message is read)", async () => {
    const res = await call("POST", "/mcp", { body: { jsonrpc: "2.0", id: 1, method: "tools/list" } });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("UnauthorizedError");
  });
});
