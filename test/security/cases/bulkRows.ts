import type { CaseFactory } from "../types";
import { ok } from "../../support/harness";

/** The bulk row writes of docs/api-guide.md › Bulk writes: each is a write a viewer may not make, and absence for an outsider. */
export const bulkRowCases: CaseFactory = async (t) => {
  const tok = t.owner.token;
  const table = await ok("POST", "/table", { token: tok, body: { projectId: t.projectId, name: "SecBulk" } });
  const tableId = table.data._id;
  const nameColumnId = table.data.columns[0]._id;
  const created = await ok("POST", `/table/${tableId}/rows`, {
    token: tok,
    body: { rows: [{ cells: { [nameColumnId]: "a" } }, { cells: { [nameColumnId]: "b" } }] },
  });
  const [live, gone] = created.data.rows.map((r: { _id: string }) => r._id);
  await ok("POST", `/table/${tableId}/rows/delete`, { token: tok, body: { ids: [gone] } });
  return [
    {
      name: "PATCH /table/{id}/rows",
      method: "PATCH",
      path: `/table/${tableId}/rows`,
      body: { rows: [{ _id: live, cells: { [nameColumnId]: "x" } }] },
      viewerForbidden: true,
    },
    {
      name: "PATCH /table/row/{id}",
      method: "PATCH",
      path: `/table/row/${live}`,
      body: { cells: { [nameColumnId]: "y" } },
      viewerForbidden: true,
    },
    {
      name: "POST /table/{id}/rows/upsert",
      method: "POST",
      path: `/table/${tableId}/rows/upsert`,
      body: { keyColumnIds: [nameColumnId], rows: [{ cells: { [nameColumnId]: "a" } }] },
      viewerForbidden: true,
    },
    // The owner's pass deletes the live row, then restores the deleted one: each stays valid for the other callers.
    {
      name: "POST /table/{id}/rows/restore",
      method: "POST",
      path: `/table/${tableId}/rows/restore`,
      body: { ids: [gone] },
      viewerForbidden: true,
    },
    {
      name: "POST /table/{id}/rows/delete",
      method: "POST",
      path: `/table/${tableId}/rows/delete`,
      body: { ids: [live] },
      viewerForbidden: true,
    },
  ];
};
