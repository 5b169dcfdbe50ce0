import type { CaseFactory, SecurityCase } from "../types";
import { ok } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";

/** Comments (docs/api-guide.md › Comments): every route; writes are refused to a viewer (403). */
export const commentCases: CaseFactory = async (t): Promise<SecurityCase[]> => {
  const table = await makeTable(t.owner.token, t.projectId, "Security comments");
  const row = await addRow(t.owner.token, table.tableId);
  const thread = async (body: string) =>
    (await ok("POST", `/document/${t.docId}/comment`, { token: t.owner.token, body: { body } })).data._id as string;
  const [commentId, toDelete] = [await thread("Security"), await thread("Security delete")];
  await ok("PUT", `/comment/${commentId}/reaction/${encodeURIComponent("👍")}`, { token: t.owner.token });
  const emoji = encodeURIComponent("🎉");
  return [
    {
      name: "POST /document/{id}/comment",
      method: "POST",
      path: `/document/${t.docId}/comment`,
      body: { body: "x", anchor: { blockId: "b1" } },
      viewerForbidden: true,
    },
    {
      name: "POST /table/row/{id}/comment",
      method: "POST",
      path: `/table/row/${row.row._id}/comment`,
      body: { body: "x", columnId: table.nameColumnId },
      viewerForbidden: true,
    },
    {
      name: "POST /comment/{id}/reply",
      method: "POST",
      path: `/comment/${commentId}/reply`,
      body: { body: "x" },
      viewerForbidden: true,
    },
    { name: "GET /document/{id}/comments", method: "GET", path: `/document/${t.docId}/comments` },
    { name: "GET /table/row/{id}/comments", method: "GET", path: `/table/row/${row.row._id}/comments` },
    { name: "GET /comment/{id}", method: "GET", path: `/comment/${commentId}` },
    {
      name: "PATCH /comment/{id}",
      method: "PATCH",
      path: `/comment/${commentId}`,
      body: { body: "Security" },
      viewerForbidden: true,
    },
    {
      name: "POST /comment/{id}/resolve",
      method: "POST",
      path: `/comment/${commentId}/resolve`,
      viewerForbidden: true,
    },
    { name: "POST /comment/{id}/reopen", method: "POST", path: `/comment/${commentId}/reopen`, viewerForbidden: true },
    {
      name: "PUT /comment/{id}/reaction/{emoji}",
      method: "PUT",
      path: `/comment/${commentId}/reaction/${emoji}`,
      viewerForbidden: true,
    },
    {
      name: "DELETE /comment/{id}/reaction/{emoji}",
      method: "DELETE",
      path: `/comment/${commentId}/reaction/${emoji}`,
      viewerForbidden: true,
    },
    { name: "DELETE /comment/{id}", method: "DELETE", path: `/comment/${toDelete}`, viewerForbidden: true },
  ];
};
