import type { CaseFactory, SecurityCase } from "../types";
import { ok } from "../../support/harness";

/** Querying rows, aggregates and views (docs/api-guide.md › Querying rows; Views and aggregates). */
export const queryCases: CaseFactory = async (t) => {
  const tok = t.owner.token;
  const table = await ok("POST", "/table", { token: tok, body: { projectId: t.projectId, name: "SecQuery" } });
  const tableId = table.data._id;
  const nameColumnId = table.data.columns[0]._id;
  await ok("POST", `/table/${tableId}/row`, { token: tok, body: { cells: { [nameColumnId]: "secret" } } });
  const filter = { and: [{ columnId: nameColumnId, op: "eq", value: "secret" }] };
  const cases: SecurityCase[] = [
    {
      name: "GET /table/{id}/rows?filter",
      method: "GET",
      path: `/table/${tableId}/rows`,
      query: { filter: JSON.stringify(filter), sort: JSON.stringify([{ columnId: nameColumnId }]) },
    },
    { name: "POST /table/{id}/query", method: "POST", path: `/table/${tableId}/query`, body: { filter } },
    {
      name: "GET /table/{id}/aggregate",
      method: "GET",
      path: `/table/${tableId}/aggregate`,
      query: { metrics: "count", groupBy: nameColumnId },
    },
  ];
  return cases;
};
