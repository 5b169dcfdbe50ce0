import type { CaseFactory } from "../types";
import { ok } from "../../support/harness";

/** Every table, column, row, cell, table-reference and clause-reference route (docs/api-guide.md › Tables, columns, rows, cells; Content, snapshots and references). */
export const tableCases: CaseFactory = async (t) => {
  const tok = t.owner.token;
  const table = await ok("POST", "/table", { token: tok, body: { projectId: t.projectId, name: "Sec" } });
  const tableId = table.data._id;
  const nameColumnId = table.data.columns[0]._id;
  const text = await ok("POST", `/table/${tableId}/column`, {
    token: tok,
    body: { name: "Text", data: { type: "text" } },
  });
  const columnId = text.data._id;
  const row = await ok("POST", `/table/${tableId}/row`, {
    token: tok,
    body: { cells: { [nameColumnId]: "r", [columnId]: "v" } },
  });
  const rowId = row.data.row._id;
  const cellId = row.data.cells[0]._id;
  const ref = await ok("POST", "/table/reference", {
    token: tok,
    body: { documentId: t.docId, tableId, columnId, relatedRowId: rowId, type: "reference" },
  });
  const clauseId = `sec-clause-${Date.now().toString(36)}`;
  await ok("POST", "/clause-reference", {
    token: tok,
    body: { _id: clauseId, blockId: "b", documentId: t.docId, hierarchy: `${t.doc2Id}/b` },
  });

  return [
    {
      name: "POST /table",
      method: "POST",
      path: "/table",
      body: { projectId: t.projectId, name: "x" },
      viewerForbidden: true,
    },
    { name: "GET /table/{id}", method: "GET", path: `/table/${tableId}` },
    {
      name: "PATCH /table/{id}",
      method: "PATCH",
      path: `/table/${tableId}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    { name: "DELETE /table/{id}", method: "DELETE", path: `/table/${tableId}`, viewerForbidden: true },
    { name: "E19 GET /table/all/{projectId}/id", method: "GET", path: `/table/all/${t.projectId}/id` },
    {
      name: "POST /table/{id}/column",
      method: "POST",
      path: `/table/${tableId}/column`,
      body: { name: "x", data: { type: "text" } },
      viewerForbidden: true,
    },
    {
      name: "PATCH /table/column/{id}",
      method: "PATCH",
      path: `/table/column/${columnId}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    { name: "DELETE /table/column/{id}", method: "DELETE", path: `/table/column/${columnId}`, viewerForbidden: true },
    { name: "E11 GET /table/columns/{tableId}", method: "GET", path: `/table/columns/${tableId}` },
    {
      name: "POST /table/{id}/row",
      method: "POST",
      path: `/table/${tableId}/row`,
      body: { cells: { [columnId]: "x" } },
      viewerForbidden: true,
    },
    {
      name: "POST /table/{id}/rows",
      method: "POST",
      path: `/table/${tableId}/rows`,
      body: { rows: [{ cells: {} }] },
      viewerForbidden: true,
    },
    { name: "GET /table/{id}/rows", method: "GET", path: `/table/${tableId}/rows` },
    { name: "E16 GET /table/row/{id}", method: "GET", path: `/table/row/${rowId}` },
    { name: "DELETE /table/row/{id}", method: "DELETE", path: `/table/row/${rowId}`, viewerForbidden: true },
    {
      name: "PUT /table/row/{id}/cell/{columnId}",
      method: "PUT",
      path: `/table/row/${rowId}/cell/${columnId}`,
      body: { data: "x" },
      viewerForbidden: true,
    },
    { name: "E15 GET /table/cell/{id}", method: "GET", path: `/table/cell/${cellId}` },
    {
      name: "POST /table/reference",
      method: "POST",
      path: "/table/reference",
      body: { documentId: t.docId, tableId, columnId, relatedRowId: null, type: "global" },
      viewerForbidden: true,
    },
    { name: "E1 GET /table/reference/{id}", method: "GET", path: `/table/reference/${ref.data._id}` },
    {
      name: "DELETE /table/reference/{id}",
      method: "DELETE",
      path: `/table/reference/${ref.data._id}`,
      viewerForbidden: true,
    },
    { name: "GET /document/{id}/table-references", method: "GET", path: `/document/${t.docId}/table-references` },
    {
      name: "E4 POST /clause-reference",
      method: "POST",
      path: "/clause-reference",
      body: { _id: `${clauseId}-new`, blockId: "b", documentId: t.docId, hierarchy: "d/b" },
      viewerForbidden: true,
    },
    { name: "GET /clause-reference/{id}", method: "GET", path: `/clause-reference/${clauseId}` },
    {
      name: "DELETE /clause-reference/{id}",
      method: "DELETE",
      path: `/clause-reference/${clauseId}`,
      viewerForbidden: true,
    },
    { name: "GET /document/{id}/clause-references", method: "GET", path: `/document/${t.docId}/clause-references` },
  ];
};
