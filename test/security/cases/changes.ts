import type { CaseFactory, SecurityCase } from "../types";
import { addRow, makeTable } from "../../support/tableHarness";

/** The change feed and history (docs/api-guide.md › Changes, history and audit): reads a viewer may make. */
export const changeCases: CaseFactory = async (t): Promise<SecurityCase[]> => {
  const table = await makeTable(t.owner.token, t.projectId, "Security changes");
  const row = await addRow(t.owner.token, table.tableId);

  return [
    { name: "GET /changes?tableId", method: "GET", path: `/changes?tableId=${table.tableId}` },
    { name: "GET /changes?projectId", method: "GET", path: `/changes?projectId=${t.projectId}` },
    { name: "GET /changes?workspaceId", method: "GET", path: `/changes?workspaceId=${t.workspaceId}` },
    { name: "GET /table/row/{id}/history", method: "GET", path: `/table/row/${row.row._id}/history` },
    { name: "GET /document/{id}/history", method: "GET", path: `/document/${t.docId}/history` },
  ];
};
