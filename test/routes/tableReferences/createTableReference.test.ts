/** createTableReference: POST /table/reference (src/routes/tableReferences/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addColumn, addRow, makeTable } from "../../support/tableHarness";

/** Caller-chosen ids are global; a per-run suffix keeps this file independent of any other. */
const sfx = Math.random().toString(36).slice(2, 8);
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
  it("creates, reads (E1), lists and deletes a reference, names resolved live", async () => {
    const oneMany = await addColumn(t.owner.token, table.tableId, "Links", {
      type: "oneMany",
      oneMany: { tableId: table.tableId, filter: [] },
    });
    const created = await ok("POST", "/table/reference", {
      token: t.editor.token,
      body: refBody({
        _id: `ref-1-custom-${sfx}`,
        rowId,
        oneToManyColumnId: oneMany._id,
        oneToManyInstanceIds: [rowId],
        type: "relation",
        workspaceId: "ignored",
        tableName: "ignored",
      }),
    });
    expect(created.data).toEqual({
      _id: `ref-1-custom-${sfx}`,
      originId: "",
      documentId: t.docId,
      workspaceId: t.workspaceId,
      tableId: table.tableId,
      columnId: table.nameColumnId,
      relatedRowId: rowId,
      rowId,
      oneToManyColumnId: oneMany._id,
      oneToManyInstanceIds: [rowId],
      columnName: "Name",
      tableName: "Clauses",
      type: "relation",
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(await ok("GET", `/table/reference/ref-1-custom-${sfx}`, { token: t.viewer.token })).toEqual(created);

    const minimal = await ok("POST", "/table/reference", {
      token: t.owner.token,
      body: refBody({ relatedRowId: null, type: "global" }),
    });
    expect(minimal.data).toMatchObject({
      relatedRowId: null,
      rowId: null,
      oneToManyColumnId: null,
      oneToManyInstanceIds: [],
      type: "global",
    });
    expect(minimal.data._id).toMatch(/^[0-9A-Z]{28}$/);

    // A rename shows at once.
    await ok("PATCH", `/table/${table.tableId}`, { token: t.owner.token, body: { name: "Clause library" } });
    await ok("PATCH", `/table/column/${table.nameColumnId}`, { token: t.owner.token, body: { name: "Title" } });
    const renamed = await ok("GET", `/table/reference/ref-1-custom-${sfx}`, { token: t.viewer.token });
    expect(renamed.data).toMatchObject({ columnName: "Title", tableName: "Clause library" });

    const list = await ok("GET", `/document/${t.docId}/table-references`, { token: t.viewer.token });
    expect(list.data.map((r: any) => r._id)).toEqual([`ref-1-custom-${sfx}`, minimal.data._id]);
    expect(list.data[0]).toEqual(renamed.data);
    expect((await ok("GET", `/document/${t.doc2Id}/table-references`, { token: t.owner.token })).data).toEqual([]);

    expect(await ok("DELETE", `/table/reference/ref-1-custom-${sfx}`, { token: t.editor.token })).toEqual({
      data: { success: true },
    });
    expectError(
      await call("GET", `/table/reference/ref-1-custom-${sfx}`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("DELETE", `/table/reference/ref-1-custom-${sfx}`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    expect(
      (await ok("GET", `/document/${t.docId}/table-references`, { token: t.owner.token })).data.map((r: any) => r._id),
    ).toEqual([minimal.data._id]);
    // The id stays taken.
    expectError(
      await call("POST", "/table/reference", { token: t.owner.token, body: refBody({ _id: `ref-1-custom-${sfx}` }) }),
      409,
      "ConflictError",
    );
  });

  it("validates the body and the references inside it", async () => {
    const other = await makeTable(t.owner.token, t.projectId, "Other");
    const otherRow = (await addRow(t.owner.token, other.tableId)).row._id;
    const cases: [Record<string, unknown>, string?][] = [
      [{ ...refBody(), type: "link" }],
      [{ ...refBody(), _id: "bad id" }],
      [{ ...refBody(), extra: 1 }],
      [(({ relatedRowId: _r, ...rest }) => rest)(refBody())],
      [{ ...refBody(), oneToManyInstanceIds: "x" }],
      [refBody({ columnId: other.nameColumnId }), "columnId"],
      [refBody({ relatedRowId: otherRow }), "relatedRowId"],
      [refBody({ oneToManyColumnId: other.nameColumnId }), "oneToManyColumnId"],
    ];
    for (const [body, path] of cases) {
      const res = await call("POST", "/table/reference", { token: t.owner.token, body });
      expectError(res, 400, "ValidationError");
      if (path) expect(res.body.details.map((d: any) => d.path)).toContain(path);
    }
    expectError(await call("GET", "/table/reference/bad%20id", { token: t.owner.token }), 400, "ValidationError");
  });

  it("answers 404 for missing or unreadable documents and tables, 403 for a viewer creating or deleting", async () => {
    expectError(
      await call("POST", "/table/reference", { token: t.owner.token, body: refBody({ documentId: "01NOPE" }) }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table/reference", { token: t.owner.token, body: refBody({ tableId: "01NOPE" }) }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table/reference", { token: t.viewer.token, body: refBody() }),
      403,
      "ForbiddenError",
    );
    // Existence and read access come before the role (docs/api-guide.md › Conventions): a viewer naming a missing table gets 404, not 403.
    expectError(
      await call("POST", "/table/reference", { token: t.viewer.token, body: refBody({ tableId: "01NOPE" }) }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/table/reference", { token: t.outsider.token, body: refBody() }),
      404,
      "NotFoundError",
    );
    const ref = await ok("POST", "/table/reference", { token: t.owner.token, body: refBody() });
    expectError(
      await call("GET", `/table/reference/${ref.data._id}`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", "/table/reference/01NOPE", { token: t.owner.token }), 404, "NotFoundError");
    expectError(
      await call("DELETE", `/table/reference/${ref.data._id}`, { token: t.viewer.token }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("DELETE", `/table/reference/${ref.data._id}`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("GET", `/document/${t.docId}/table-references`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    // An outsider's own table cannot be referenced from a document they cannot edit, nor ours from theirs.
    const project = await ok("POST", "/project", {
      token: t.outsider.token,
      body: { workspaceId: t.outsider.workspaceId, name: "Mine" },
    });
    const theirs = await makeTable(t.outsider.token, project.data._id, "Theirs");
    expectError(
      await call("POST", "/table/reference", {
        token: t.owner.token,
        body: refBody({ tableId: theirs.tableId, columnId: theirs.nameColumnId, relatedRowId: null }),
      }),
      404,
      "NotFoundError",
    );
  });

  it("vanishes with its document", async () => {
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Temp", type: "DOCUMENT" },
    });
    const ref = await ok("POST", "/table/reference", {
      token: t.owner.token,
      body: refBody({ documentId: doc.data._id }),
    });
    await ok("DELETE", `/document/${doc.data._id}`, { token: t.owner.token });
    expectError(await call("GET", `/table/reference/${ref.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
