/** getTableReference: GET /table/reference/{referenceId} (src/routes/tableReferences/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { shardD1 } from "../../support/shards";

let t: Tenant;
let table: { tableId: string; nameColumnId: string };
let rowId: string;
beforeAll(async () => {
  t = await seedTenant();
  table = await makeTable(t.owner.token, t.projectId, "Clauses");
  rowId = (await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "Indemnity" })).row._id;
});

const refBody = (extra: Record<string, unknown> = {}) => ({
  documentId: t.docId,
  tableId: table.tableId,
  columnId: table.nameColumnId,
  relatedRowId: rowId,
  type: "reference",
  ...extra,
});

describe("table references", () => {
  it("E1 is 403 when the document is readable but the referenced table is not", async () => {
    // The owner references a table of a second workspace; a document-only reader sees the document, not that table.
    const ws = await ok("POST", "/workspace", {
      token: t.owner.token,
      body: { organizationId: t.organizationId, name: "Private" },
    });
    const project = await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: ws.data._id, name: "Private" },
    });
    const secret = await makeTable(t.owner.token, project.data._id, "Secret");
    const ref = await ok("POST", "/table/reference", {
      token: t.owner.token,
      body: refBody({ tableId: secret.tableId, columnId: secret.nameColumnId, relatedRowId: null }),
    });
    const reader = await registerUser("Reader");
    await shardD1(t.docId)
      .prepare("INSERT INTO document_collaborators (document_id, user_id, role, created_at) VALUES (?, ?, 'viewer', ?)")
      .bind(t.docId, reader.id, Date.now())
      .run();
    const res = await call("GET", `/table/reference/${ref.data._id}`, { token: reader.token });
    expectError(res, 403, "ForbiddenError");
    expect(JSON.stringify(res.body)).not.toContain("Secret");
    const list = await ok("GET", `/document/${t.docId}/table-references`, { token: reader.token });
    expect(list.data.map((r: any) => r._id)).not.toContain(ref.data._id);
    expect((await ok("GET", `/table/reference/${ref.data._id}`, { token: t.owner.token })).data.tableName).toBe(
      "Secret",
    );
  });
});
