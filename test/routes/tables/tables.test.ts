import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";
import { shardD1 } from "../../support/shards";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("tables", () => {
  it("creates a table with its identifier column and reads, renames and deletes it", async () => {
    const created = await ok("POST", "/table", {
      token: t.editor.token,
      body: { projectId: t.projectId, name: "Contracts", documentId: t.docId },
    });
    const table = created.data;
    expect(table).toMatchObject({
      name: "Contracts",
      projectId: t.projectId,
      workspaceId: t.workspaceId,
      documentId: t.docId,
      userId: t.editor.id,
      isDeleted: false,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(table.columns).toEqual([
      expect.objectContaining({
        name: "Name",
        slug: "name",
        isIdentifier: true,
        data: { type: "identifier" },
        tableId: table._id,
        projectId: t.projectId,
        workspaceId: t.workspaceId,
        originId: "",
        description: "",
        isDeleted: false,
      }),
    ]);

    const got = await ok("GET", `/table/${table._id}`, { token: t.viewer.token });
    const { columns: _cols, ...record } = table;
    expect(got.data).toEqual(record);

    const renamed = await ok("PATCH", `/table/${table._id}`, {
      token: t.owner.token,
      body: { ...got.data, name: "Agreements" },
    });
    expect(renamed.data.name).toBe("Agreements");
    expect(renamed.data.updatedAt).toBeGreaterThanOrEqual(table.updatedAt);

    await ok("DELETE", `/table/${table._id}`, { token: t.editor.token });
    expectError(await call("GET", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/table/columns/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });

  it("validates create and patch bodies", async () => {
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "  " } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "x", extra: 1 } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: "bad id!", name: "x" } }),
      400,
      "ValidationError",
    );
    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: {} }), 400, "ValidationError");
    expectError(
      await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: { name: "x", bogus: true } }),
      400,
      "ValidationError",
    );
    expectError(await call("GET", "/table/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });

  it("answers 404 for missing projects, tables and documents, 403 for viewers, 400 for a document of another project", async () => {
    expectError(
      await call("POST", "/table", { token: t.owner.token, body: { projectId: "01NOPE", name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table", { token: t.viewer.token, body: { projectId: t.projectId, name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", "/table", { token: t.outsider.token, body: { projectId: t.projectId, name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "x", documentId: "01NOPE" },
      }),
      404,
      "NotFoundError",
    );
    // Existence and read access come before the role (docs/api-guide.md › Conventions): a viewer naming a missing document gets 404, not 403.
    expectError(
      await call("POST", "/table", {
        token: t.viewer.token,
        body: { projectId: t.projectId, name: "x", documentId: "01NOPE" },
      }),
      404,
      "NotFoundError",
    );
    const other = await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Other" },
    });
    const otherDoc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: other.data._id, name: "D", type: "DOCUMENT" },
    });
    const res = await call("POST", "/table", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "x", documentId: otherDoc.data._id },
    });
    expectError(res, 400, "ValidationError");
    expect(res.body.details[0].path).toBe("documentId");

    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("GET", "/table/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/table/${tableId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("PATCH", `/table/${tableId}`, { token: t.viewer.token, body: { name: "y" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("DELETE", `/table/${tableId}`, { token: t.viewer.token }), 403, "ForbiddenError");
  });

  it("lets a document-only collaborator read but not write the project's tables", async () => {
    const guest = await registerUser("Guest");
    // A document grant seeded directly (what E7 stores), so this test does not depend on the invitation flow.
    await shardD1(t.docId)
      .prepare("INSERT INTO document_collaborators (document_id, user_id, role, created_at) VALUES (?, ?, 'editor', ?)")
      .bind(t.docId, guest.id, Date.now())
      .run();
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Shared");
    await ok("GET", `/table/${tableId}`, { token: guest.token });
    await ok("GET", `/table/columns/${tableId}`, { token: guest.token });
    expectError(
      await call("PATCH", `/table/${tableId}`, { token: guest.token, body: { name: "z" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("POST", `/table/${tableId}/row`, { token: guest.token, body: {} }), 403, "ForbiddenError");
  });

  it("E19 lists the project's live table ids newest first", async () => {
    const project = await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "E19" },
    });
    const pid = project.data._id;
    const a = await makeTable(t.owner.token, pid, "A");
    const b = await makeTable(t.owner.token, pid, "B");
    const c = await makeTable(t.owner.token, pid, "C");
    await ok("DELETE", `/table/${b.tableId}`, { token: t.owner.token });
    const res = await ok("GET", `/table/all/${pid}/id`, { token: t.viewer.token });
    expect(res).toEqual({ data: [{ _id: c.tableId }, { _id: a.tableId }] });
    expect(await ok("GET", `/table/all/${pid}/id`, { token: t.owner.token })).toEqual(res);
    expectError(await call("GET", `/table/all/${pid}/id`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/all/01NOPE/id", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/all/b@d/id", { token: t.owner.token }), 400, "ValidationError");
  });
});

describe("OpenAPI document", () => {
  it("lists every table and reference route with named schemas and error responses", async () => {
    const doc = await ok("GET", "/openapi.json");
    const want: [string, string][] = [
      ["/table", "post"],
      ["/table/{tableId}", "get"],
      ["/table/{tableId}", "patch"],
      ["/table/{tableId}", "delete"],
      ["/table/all/{projectId}/id", "get"],
      ["/table/{tableId}/column", "post"],
      ["/table/column/{columnId}", "patch"],
      ["/table/column/{columnId}", "delete"],
      ["/table/columns/{tableId}", "get"],
      ["/table/{tableId}/row", "post"],
      ["/table/{tableId}/rows", "post"],
      ["/table/{tableId}/rows", "get"],
      ["/table/row/{rowId}", "get"],
      ["/table/row/{rowId}", "delete"],
      ["/table/row/{rowId}/cell/{columnId}", "put"],
      ["/table/cell/{cellId}", "get"],
      ["/table/reference", "post"],
      ["/table/reference/{referenceId}", "get"],
      ["/table/reference/{referenceId}", "delete"],
      ["/document/{documentId}/table-references", "get"],
      ["/clause-reference", "post"],
      ["/clause-reference/{referenceId}", "get"],
      ["/clause-reference/{referenceId}", "delete"],
      ["/document/{documentId}/clause-references", "get"],
    ];
    for (const [path, method] of want) {
      const op = doc.paths[path]?.[method];
      expect(op, `${method} ${path}`).toBeDefined();
      expect(op.responses["401"], `${method} ${path}`).toBeDefined();
      expect(op.responses["404"], `${method} ${path}`).toBeDefined();
    }
    for (const name of [
      "Table",
      "Column",
      "Row",
      "Cell",
      "TableReference",
      "ClauseReference",
      "ColumnDataInput",
      "RowsPage",
    ]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });
});
