import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "./harness";
import { addColumn, addRow, makeTable } from "./tableHarness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("tables", () => {
  it("creates a table with its identifier column and reads, renames and deletes it", async () => {
    const created = await ok("POST", "/table", { token: t.editor.token, body: { projectId: t.projectId, name: "Contracts", documentId: t.docId } });
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
      expect.objectContaining({ name: "Name", slug: "name", isIdentifier: true, data: { type: "identifier" }, tableId: table._id, projectId: t.projectId, workspaceId: t.workspaceId, originId: "", description: "", isDeleted: false }),
    ]);

    const got = await ok("GET", `/table/${table._id}`, { token: t.viewer.token });
    const { columns: _cols, ...record } = table;
    expect(got.data).toEqual(record);

    const renamed = await ok("PATCH", `/table/${table._id}`, { token: t.owner.token, body: { ...got.data, name: "Agreements" } });
    expect(renamed.data.name).toBe("Agreements");
    expect(renamed.data.updatedAt).toBeGreaterThanOrEqual(table.updatedAt);

    await ok("DELETE", `/table/${table._id}`, { token: t.editor.token });
    expectError(await call("GET", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/table/columns/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/table/${table._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });

  it("validates create and patch bodies", async () => {
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId } }), 400, "ValidationError");
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "  " } }), 400, "ValidationError");
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "x", extra: 1 } }), 400, "ValidationError");
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: "bad id!", name: "x" } }), 400, "ValidationError");
    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: {} }), 400, "ValidationError");
    expectError(await call("PATCH", `/table/${tableId}`, { token: t.owner.token, body: { name: "x", bogus: true } }), 400, "ValidationError");
    expectError(await call("GET", "/table/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });

  it("answers 404 for missing projects, tables and documents, 403 for viewers, 400 for a document of another project", async () => {
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: "01NOPE", name: "x" } }), 404, "NotFoundError");
    expectError(await call("POST", "/table", { token: t.viewer.token, body: { projectId: t.projectId, name: "x" } }), 403, "ForbiddenError");
    expectError(await call("POST", "/table", { token: t.outsider.token, body: { projectId: t.projectId, name: "x" } }), 404, "NotFoundError");
    expectError(await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "x", documentId: "01NOPE" } }), 404, "NotFoundError");
    // Existence and read access come before the role (docs/api-guide.md › Conventions): a viewer naming a missing document gets 404, not 403.
    expectError(await call("POST", "/table", { token: t.viewer.token, body: { projectId: t.projectId, name: "x", documentId: "01NOPE" } }), 404, "NotFoundError");
    const other = await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Other" } });
    const otherDoc = await ok("POST", "/document", { token: t.owner.token, body: { projectId: other.data._id, name: "D", type: "DOCUMENT" } });
    const res = await call("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "x", documentId: otherDoc.data._id } });
    expectError(res, 400, "ValidationError");
    expect(res.body.details[0].path).toBe("documentId");

    const { tableId } = await makeTable(t.owner.token, t.projectId);
    expectError(await call("GET", "/table/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/table/${tableId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("PATCH", `/table/${tableId}`, { token: t.viewer.token, body: { name: "y" } }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/table/${tableId}`, { token: t.viewer.token }), 403, "ForbiddenError");
  });

  it("lets a document-only collaborator read but not write the project's tables", async () => {
    const guest = await registerUser("Guest");
    // A document grant seeded directly (what E7 stores), so this test does not depend on the invitation flow.
    await env.DB.prepare("INSERT INTO document_collaborators (document_id, user_id, role, created_at) VALUES (?, ?, 'editor', ?)").bind(t.docId, guest.id, Date.now()).run();
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Shared");
    await ok("GET", `/table/${tableId}`, { token: guest.token });
    await ok("GET", `/table/columns/${tableId}`, { token: guest.token });
    expectError(await call("PATCH", `/table/${tableId}`, { token: guest.token, body: { name: "z" } }), 403, "ForbiddenError");
    expectError(await call("POST", `/table/${tableId}/row`, { token: guest.token, body: {} }), 403, "ForbiddenError");
  });

  it("E19 lists the project's live table ids newest first", async () => {
    const project = await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "E19" } });
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

describe("columns", () => {
  it("creates every column type with its options", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Types");
    const target = await makeTable(t.owner.token, t.projectId, "Target");
    const items = [
      { id: "a", label: "A", color: "red" },
      { id: "b", label: "B", color: "blue" },
    ];
    const datas: Record<string, unknown>[] = [
      { type: "text" },
      { type: "number", number: { format: "currency", decimalPlaces: 2, aggregation: "sum" } },
      { type: "checkbox" },
      { type: "date" },
      { type: "select", selectItems: items },
      { type: "multiSelect", selectItems: items },
      { type: "url" },
      { type: "email" },
      { type: "formula" },
      { type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "isNotEmpty" }], filterConjunction: "or" } },
      { type: "text", width: 240 },
    ];
    for (const data of datas) {
      const col = await addColumn(t.editor.token, tableId, `Col ${data.type}`, data);
      expect(col).toMatchObject({ tableId, projectId: t.projectId, workspaceId: t.workspaceId, isIdentifier: false, isDeleted: false, data });
      expect(Object.keys(col).sort()).toEqual(
        ["_id", "projectId", "tableId", "workspaceId", "name", "slug", "originId", "description", "isIdentifier", "data", "createdAt", "updatedAt", "isDeleted"].sort(),
      );
    }
    const list = await ok("GET", `/table/columns/${tableId}`, { token: t.viewer.token });
    expect(list.data.map((c: any) => c.data.type)).toEqual(["identifier", ...datas.map((d) => d.type)]);
    const select = await addColumn(t.owner.token, tableId, "Empty select", { type: "select" });
    expect(select.data).toEqual({ type: "select", selectItems: [] });
    const om = await addColumn(t.owner.token, tableId, "Default conj", { type: "oneMany", oneMany: { tableId: target.tableId, filter: [] } });
    expect(om.data.oneMany.filterConjunction).toBe("and");
  });

  it("derives unique slugs and re-derives them on rename", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Slugs");
    const a = await addColumn(t.owner.token, tableId, "Name", { type: "text" });
    const b = await addColumn(t.owner.token, tableId, "name", { type: "text" });
    const c = await addColumn(t.owner.token, tableId, "Crème Brûlée & Co.", { type: "text" });
    const d = await addColumn(t.owner.token, tableId, "!!!", { type: "text" });
    expect([a.slug, b.slug, c.slug, d.slug]).toEqual(["name-2", "name-3", "creme-brulee-co", "column"]);
    const renamed = await ok("PATCH", `/table/column/${b._id}`, { token: t.owner.token, body: { name: "Crème brûlée co" } });
    expect(renamed.data).toMatchObject({ name: "Crème brûlée co", slug: "creme-brulee-co-2" });
    const same = await ok("PATCH", `/table/column/${c._id}`, { token: t.owner.token, body: { name: "Creme Brulee Co" } });
    expect(same.data.slug).toBe("creme-brulee-co");
    // A deleted column's slug stays taken.
    await ok("DELETE", `/table/column/${a._id}`, { token: t.owner.token });
    expect((await addColumn(t.owner.token, tableId, "Name", { type: "text" })).slug).toBe("name-3");
  });

  it("runs concurrent creates of the same name to distinct slugs", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Race");
    const cols = await Promise.all([1, 2, 3, 4].map(() => addColumn(t.owner.token, tableId, "Same", { type: "text" })));
    expect(new Set(cols.map((c) => c.slug)).size).toBe(4);
  });

  it("rejects invalid column data with 400", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Invalid");
    const target = await makeTable(t.owner.token, t.projectId, "Target2");
    const otherProject = await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Elsewhere" } });
    const foreign = await makeTable(t.owner.token, otherProject.data._id, "Foreign");
    const relation = await addColumn(t.owner.token, target.tableId, "Rel", { type: "oneMany", oneMany: { tableId, filter: [] } });
    const bad: [unknown, string?][] = [
      [{ type: "nope" }],
      [{}],
      [{ type: "select", selectItems: [{ id: "a", label: "A", color: "r" }, { id: "a", label: "B", color: "b" }] }, "data.selectItems.1.id"],
      [{ type: "select", selectItems: [{ id: "a b", label: "A", color: "r" }] }],
      [{ type: "number", number: { decimalPlaces: 21 } }],
      [{ type: "number", number: { decimalPlaces: 1.5 } }],
      [{ type: "number", number: { aggregation: "explode" } }],
      [{ type: "oneMany" }],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "like", value: "x" }] } }],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [], filterConjunction: "xor" } }],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "eq" }] } }],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "eq", value: "x", sourceColumnId: nameColumnId }] } }],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "in", value: "x" }] } }],
      [{ type: "oneMany", oneMany: { tableId: foreign.tableId, filter: [] } }, "data.oneMany.tableId"],
      [{ type: "oneMany", oneMany: { tableId: "01NOPE", filter: [] } }, "data.oneMany.tableId"],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: nameColumnId, op: "eq", value: "x" }] } }, "data.oneMany.filter.0.targetColumnId"],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: target.nameColumnId, op: "eq", sourceColumnId: target.nameColumnId }] } }, "data.oneMany.filter.0.sourceColumnId"],
      [{ type: "oneMany", oneMany: { tableId: target.tableId, filter: [{ targetColumnId: relation._id, op: "isEmpty" }] } }, "data.oneMany.filter.0.targetColumnId"],
    ];
    for (const [data, path] of bad) {
      const res = await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Bad", data } });
      expectError(res, 400, "ValidationError");
      if (path) expect(res.body.details.map((d: any) => d.path), JSON.stringify(data)).toContain(path);
    }
    expectError(await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Bad" } }), 400, "ValidationError");
    expectError(await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Bad", data: { type: "text" }, x: 1 } }), 400, "ValidationError");
    const cols = await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token });
    expect(cols.data).toHaveLength(1);
  });

  it("keeps exactly one identifier column (409)", async () => {
    const { tableId, nameColumnId } = await makeTable(t.owner.token, t.projectId, "Ident");
    expectError(await call("POST", `/table/${tableId}/column`, { token: t.owner.token, body: { name: "Id2", data: { type: "identifier" } } }), 409, "ConflictError");
    expectError(await call("PATCH", `/table/column/${nameColumnId}`, { token: t.owner.token, body: { data: { type: "text" } } }), 409, "ConflictError");
    const text = await addColumn(t.owner.token, tableId, "Text", { type: "text" });
    expectError(await call("PATCH", `/table/column/${text._id}`, { token: t.owner.token, body: { data: { type: "identifier" } } }), 409, "ConflictError");
    expectError(await call("DELETE", `/table/column/${nameColumnId}`, { token: t.owner.token }), 409, "ConflictError");
    const renamed = await ok("PATCH", `/table/column/${nameColumnId}`, { token: t.owner.token, body: { name: "Title", data: { type: "identifier" } } });
    expect(renamed.data).toMatchObject({ name: "Title", slug: "title", isIdentifier: true });
  });

  it("patches description and data, keeping stored values across a type change", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Patch");
    const col = await addColumn(t.owner.token, tableId, "Score", { type: "number" });
    const row = await addRow(t.owner.token, tableId, { [col._id]: 7 });
    const patched = await ok("PATCH", `/table/column/${col._id}`, { token: t.editor.token, body: { ...col, description: "Points", data: { type: "text" } } });
    expect(patched.data).toMatchObject({ name: "Score", slug: "score", description: "Points", data: { type: "text" } });
    const rows = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(rows.data[0].cells[col._id]).toBe(7);
    // Writes now follow the new type.
    expectError(await call("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: 8 } }), 400, "ValidationError");
    await ok("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: "eight" } });
    expectError(await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { data: { type: "select", selectItems: [{ id: "x", label: "X", color: "c" }, { id: "x", label: "Y", color: "c" }] } } }), 400, "ValidationError");
    expectError(await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { slug: "x", bogus: 1 } }), 400, "ValidationError");
  });

  it("soft-deletes columns: gone from E11, from rows, and their cells 404", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "DelCol");
    const col = await addColumn(t.owner.token, tableId, "Gone", { type: "text" });
    const row = await addRow(t.owner.token, tableId, { [col._id]: "v" });
    const cellId = row.cells.find((c: any) => c.columnId === col._id)._id;
    await ok("GET", `/table/cell/${cellId}`, { token: t.owner.token });
    await ok("DELETE", `/table/column/${col._id}`, { token: t.editor.token });
    const cols = await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token });
    expect(cols.data.map((c: any) => c._id)).not.toContain(col._id);
    const rows = await ok("GET", `/table/${tableId}/rows`, { token: t.owner.token });
    expect(Object.keys(rows.data[0].cells)).not.toContain(col._id);
    expectError(await call("GET", `/table/cell/${cellId}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/table/column/${col._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("PATCH", `/table/column/${col._id}`, { token: t.owner.token, body: { name: "x" } }), 404, "NotFoundError");
    expectError(await call("PUT", `/table/row/${row.row._id}/cell/${col._id}`, { token: t.owner.token, body: { data: "w" } }), 404, "NotFoundError");
  });

  it("guards column routes: viewer 403, outsider 404, missing 404, bad ids 400", async () => {
    const { tableId } = await makeTable(t.owner.token, t.projectId, "Guard");
    const col = await addColumn(t.owner.token, tableId, "C", { type: "text" });
    expectError(await call("POST", `/table/${tableId}/column`, { token: t.viewer.token, body: { name: "x", data: { type: "text" } } }), 403, "ForbiddenError");
    expectError(await call("PATCH", `/table/column/${col._id}`, { token: t.viewer.token, body: { name: "x" } }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/table/column/${col._id}`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("POST", `/table/${tableId}/column`, { token: t.outsider.token, body: { name: "x", data: { type: "text" } } }), 404, "NotFoundError");
    expectError(await call("PATCH", `/table/column/${col._id}`, { token: t.outsider.token, body: { name: "x" } }), 404, "NotFoundError");
    expectError(await call("GET", `/table/columns/${tableId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", "/table/columns/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("POST", "/table/01NOPE/column", { token: t.owner.token, body: { name: "x", data: { type: "text" } } }), 404, "NotFoundError");
    expectError(await call("PATCH", "/table/column/01NOPE", { token: t.owner.token, body: { name: "x" } }), 404, "NotFoundError");
    expectError(await call("GET", "/table/columns/no%20pe", { token: t.owner.token }), 400, "ValidationError");
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
    for (const name of ["Table", "Column", "Row", "Cell", "TableReference", "ClauseReference", "ColumnDataInput", "RowsPage"]) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });
});
