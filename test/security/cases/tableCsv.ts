import type { CaseFactory } from "../types";
import { ok } from "../../support/harness";

/** CSV import and export of a table (docs/api-guide.md › CSV import and export). */
export const tableCsvCases: CaseFactory = async (t) => {
  const table = await ok("POST", "/table", { token: t.owner.token, body: { projectId: t.projectId, name: "Sec CSV" } });
  const tableId = table.data._id;
  return [
    {
      name: "POST /table/{id}/import",
      method: "POST",
      path: `/table/${tableId}/import`,
      // A file that adds a column: the costlier kind of import for the round-trip budget.
      raw: () => "Name,Extra\r\nx,1\r\n",
      headers: { "content-type": "text/csv" },
      viewerForbidden: true,
    },
    { name: "GET /table/{id}/export.csv", method: "GET", path: `/table/${tableId}/export.csv` },
  ];
};
