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

/** Views (docs/api-guide.md › Views and aggregates). */
export const viewCases: CaseFactory = async (t) => {
  const tok = t.owner.token;
  const table = await ok("POST", "/table", { token: tok, body: { projectId: t.projectId, name: "SecViews" } });
  const tableId = table.data._id;
  const view = await ok("POST", `/table/${tableId}/view`, { token: tok, body: { name: "v" } });
  const viewId = view.data._id;
  const cases: SecurityCase[] = [
    {
      name: "POST /table/{id}/view",
      method: "POST",
      path: `/table/${tableId}/view`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    { name: "GET /table/{id}/views", method: "GET", path: `/table/${tableId}/views` },
    { name: "GET /table/view/{id}", method: "GET", path: `/table/view/${viewId}` },
    { name: "GET /table/view/{id}/rows", method: "GET", path: `/table/view/${viewId}/rows` },
    {
      name: "PATCH /table/view/{id}",
      method: "PATCH",
      path: `/table/view/${viewId}`,
      body: { name: "y" },
      viewerForbidden: true,
    },
    { name: "DELETE /table/view/{id}", method: "DELETE", path: `/table/view/${viewId}`, viewerForbidden: true },
  ];
  return cases;
};
