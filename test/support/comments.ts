/** Helpers of the comment tests (test/routes/comments/): a tenant with a commenter, a table row, threads. */
import { addWorkspaceCollaborator, ok, registerUser, seedTenant, type RegisteredUser, type Tenant } from "./harness";
import { addRow, makeTable } from "./tableHarness";

export interface CommentTenant extends Tenant {
  commenter: RegisteredUser;
  tableId: string;
  nameColumnId: string;
  rowId: string;
}

/** seedTenant plus a workspace commenter and a table with one row. */
export async function seedCommentTenant(): Promise<CommentTenant> {
  const t = await seedTenant();
  const commenter = await registerUser("Commenter");
  await addWorkspaceCollaborator(t.owner, t.workspaceId, commenter, "commenter");
  const table = await makeTable(t.owner.token, t.projectId, "Clauses");
  const row = await addRow(t.owner.token, table.tableId);
  return { ...t, commenter, tableId: table.tableId, nameColumnId: table.nameColumnId, rowId: row.row._id };
}

/** A new thread on the tenant's document (as `token`), its answer's data. */
export async function docThread(t: Tenant, token: string, body = "A remark", anchor?: object): Promise<any> {
  return (await ok("POST", `/document/${t.docId}/comment`, { token, body: { body, ...(anchor ? { anchor } : {}) } }))
    .data;
}

/** A new thread on the tenant's row, its answer's data. */
export async function rowThread(t: CommentTenant, token: string, body = "A row remark", columnId?: string) {
  return (
    await ok("POST", `/table/row/${t.rowId}/comment`, { token, body: { body, ...(columnId ? { columnId } : {}) } })
  ).data;
}
