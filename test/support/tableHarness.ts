/** Table helpers over the public API, shared by the table, row, relation and reference tests. */
import { ok } from "./harness";

export interface TestTable {
  tableId: string;
  nameColumnId: string;
}

export async function makeTable(token: string, projectId: string, name = "Table"): Promise<TestTable> {
  const res = await ok("POST", "/table", { token, body: { projectId, name } });
  return { tableId: res.data._id, nameColumnId: res.data.columns[0]._id };
}

export async function addColumn(
  token: string,
  tableId: string,
  name: string,
  data: Record<string, unknown>,
): Promise<any> {
  return (await ok("POST", `/table/${tableId}/column`, { token, body: { name, data } })).data;
}

export async function addRow(token: string, tableId: string, cells: Record<string, unknown> = {}): Promise<any> {
  return (await ok("POST", `/table/${tableId}/row`, { token, body: { cells } })).data;
}

export async function bulkRows(token: string, tableId: string, rows: Record<string, unknown>[]): Promise<any[]> {
  return (await ok("POST", `/table/${tableId}/rows`, { token, body: { rows: rows.map((cells) => ({ cells })) } })).data
    .rows;
}

/** Every page of GET /table/{id}/rows, optionally doing something between page fetches. */
export async function allRows(
  token: string,
  tableId: string,
  limit = 1000,
  between?: (page: number) => Promise<void>,
): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    const res = await ok("GET", `/table/${tableId}/rows`, { token, query: { limit, cursor } });
    out.push(...res.data);
    if (!res.nextCursor) return out;
    cursor = res.nextCursor;
    if (between) await between(page);
  }
}

const SELECT_ITEMS = [
  { id: "red", label: "Red", color: "#f00" },
  { id: "blue", label: "Blue", color: "#00f" },
];

/** A table with one column of every writable type, plus a formula and a oneMany column. */
export async function makeTypedTable(token: string, projectId: string) {
  const table = await makeTable(token, projectId, "Typed");
  const col: Record<string, string> = { identifier: table.nameColumnId };
  for (const type of ["text", "number", "checkbox", "date", "url", "email", "formula"])
    col[type] = (await addColumn(token, table.tableId, type, { type }))._id;
  col.select = (await addColumn(token, table.tableId, "select", { type: "select", selectItems: SELECT_ITEMS }))._id;
  col.multiSelect = (
    await addColumn(token, table.tableId, "multiSelect", { type: "multiSelect", selectItems: SELECT_ITEMS })
  )._id;
  col.oneMany = (
    await addColumn(token, table.tableId, "oneMany", {
      type: "oneMany",
      oneMany: { tableId: table.tableId, filter: [] },
    })
  )._id;
  return { ...table, col };
}
