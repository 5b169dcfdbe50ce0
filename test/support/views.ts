/** A table of three invoices and a way to save views on it, for the views' operation tests (test/routes/views/). */
import { ok, seedTenant, type Tenant } from "./harness";
import { addColumn, bulkRows, makeTable } from "./tableHarness";

export interface ViewsFixture {
  t: Tenant;
  tableId: string;
  amount: string;
  /** Saves a view as the workspace editor; answers the view record. */
  save(name: string): Promise<{ _id: string; name: string }>;
}

export async function viewsFixture(): Promise<ViewsFixture> {
  const t = await seedTenant();
  const table = await makeTable(t.owner.token, t.projectId, "Invoices");
  const amount = (await addColumn(t.owner.token, table.tableId, "amount", { type: "number" }))._id;
  await bulkRows(t.owner.token, table.tableId, [
    { [table.nameColumnId]: "a", [amount]: 1500 },
    { [table.nameColumnId]: "b", [amount]: 200 },
  ]);
  const save = async (name: string) =>
    (
      await ok("POST", `/table/${table.tableId}/view`, {
        token: t.editor.token,
        body: { name, filter: { and: [{ columnId: amount, op: "gt", value: 1000 }] } },
      })
    ).data;
  return { t, tableId: table.tableId, amount, save };
}

/** A table of three invoices (name, amount, note: 1500 "x", 200 "y", 3000 "y"), for the views' CRUD and rows tests. */
export async function invoicesTable(token: string, projectId: string) {
  const table = await makeTable(token, projectId, "Invoices");
  const nameCol = table.nameColumnId;
  const amount = (await addColumn(token, table.tableId, "amount", { type: "number" }))._id as string;
  const note = (await addColumn(token, table.tableId, "note", { type: "text" }))._id as string;
  await bulkRows(token, table.tableId, [
    { [nameCol]: "a", [amount]: 1500, [note]: "x" },
    { [nameCol]: "b", [amount]: 200, [note]: "y" },
    { [nameCol]: "c", [amount]: 3000, [note]: "y" },
  ]);
  return { tableId: table.tableId, nameCol, amount, note };
}

/** The position of the end of the table's change feed, for changesAfter. */
export async function feedEnd(token: string, tableId: string): Promise<string> {
  return (await ok("GET", `/changes?tableId=${tableId}&cursor=latest`, { token })).nextCursor;
}

/** The table's change-log entries after `cursor` whose kind starts with `view.`, as [kind, recordId, changes]. */
export async function viewEntriesAfter(token: string, tableId: string, cursor: string) {
  const page = await ok("GET", `/changes?tableId=${tableId}&cursor=${cursor}`, { token });
  return (page.data as { kind: string; recordId: string; changes?: unknown; tableId: string }[])
    .filter((e) => e.kind.startsWith("view."))
    .map((e) => [e.kind, e.recordId, e.changes ?? null, e.tableId]);
}
