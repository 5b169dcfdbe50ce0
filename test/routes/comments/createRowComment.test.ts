/** POST /table/row/{rowId}/comment (docs/api-guide.md › Comments): threads on rows and cells. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { rowThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("createRowComment", () => {
  it("starts a thread on a row and on one of its cells", async () => {
    const onRow = await rowThread(t, t.owner.token, "Check this clause");
    expect(onRow).toMatchObject({ target: { rowId: t.rowId, tableId: t.tableId }, status: "open", unnotified: [] });
    expect(onRow.target.columnId).toBeUndefined();
    const onCell = await rowThread(t, t.commenter.token, "This cell", t.nameColumnId);
    expect(onCell.target).toEqual({ rowId: t.rowId, tableId: t.tableId, columnId: t.nameColumnId });
  });

  it("refuses a column of no table of the row (404), a viewer (403) and an outsider (404)", async () => {
    const post = (token: string, body: object) => call("POST", `/table/row/${t.rowId}/comment`, { token, body });
    expectError(await post(t.owner.token, { body: "x", columnId: "NOSUCHCOLUMN" }), 404, "NotFoundError");
    expectError(await post(t.viewer.token, { body: "x" }), 403, "ForbiddenError");
    expectError(await post(t.outsider.token, { body: "x" }), 404, "NotFoundError");
  });

  it("treats a deleted row as absent (404)", async () => {
    const { row } = (await ok("POST", `/table/${t.tableId}/row`, { token: t.owner.token, body: { cells: {} } })).data;
    await ok("DELETE", `/table/row/${row._id}`, { token: t.owner.token });
    expectError(
      await call("POST", `/table/row/${row._id}/comment`, { token: t.owner.token, body: { body: "x" } }),
      404,
      "NotFoundError",
    );
  });

  it("notifies a mentioned reader of the table; a user outside the workspace is unnotified", async () => {
    const c = await rowThread(t, t.editor.token, `@[${t.viewer.id}] @[${t.outsider.id}]`);
    expect(c.unnotified).toEqual([t.outsider.id]);
    const got = (await ok("GET", "/notification/all", { token: t.viewer.token })).data as any[];
    expect(got.filter((n) => n.data?.commentId === c._id)).toHaveLength(1);
  });
});
