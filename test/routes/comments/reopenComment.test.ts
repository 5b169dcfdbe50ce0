/** POST /comment/{commentId}/reopen (docs/api-guide.md › Comments). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { rowThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("reopenComment", () => {
  it("reopens a resolved thread, clearing resolvedBy and resolvedAt", async () => {
    const root = await rowThread(t, t.owner.token, "Question");
    await ok("POST", `/comment/${root._id}/resolve`, { token: t.owner.token });
    const open = (await ok("POST", `/comment/${root._id}/reopen`, { token: t.commenter.token })).data;
    expect(open).toMatchObject({ status: "open", resolvedBy: null, resolvedAt: null });
    const listed = await ok("GET", `/table/row/${t.rowId}/comments`, {
      token: t.owner.token,
      query: { status: "open" },
    });
    expect(listed.data.map((c: any) => c._id)).toContain(root._id);
  });

  it("refuses a viewer (403) and an outsider (404)", async () => {
    const root = await rowThread(t, t.owner.token, "Question");
    expectError(await call("POST", `/comment/${root._id}/reopen`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("POST", `/comment/${root._id}/reopen`, { token: t.outsider.token }), 404, "NotFoundError");
  });
});
