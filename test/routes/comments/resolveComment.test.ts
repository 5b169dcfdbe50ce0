/** POST /comment/{commentId}/resolve (docs/api-guide.md › Comments): any commenter resolves the whole thread. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("resolveComment", () => {
  it("resolves the thread from a reply, answering its root; replies carry the status", async () => {
    const root = await docThread(t, t.owner.token, "Question");
    const reply = (await ok("POST", `/comment/${root._id}/reply`, { token: t.owner.token, body: { body: "Answer" } }))
      .data;
    const resolved = (await ok("POST", `/comment/${reply._id}/resolve`, { token: t.commenter.token })).data;
    expect(resolved).toMatchObject({ _id: root._id, status: "resolved", resolvedBy: t.commenter.id });
    expect(resolved.resolvedAt).toEqual(expect.any(Number));
    expect((await ok("GET", `/comment/${reply._id}`, { token: t.viewer.token })).data.status).toBe("resolved");
  });

  it("refuses a viewer (403) and an outsider (404)", async () => {
    const root = await docThread(t, t.owner.token, "Question");
    expectError(await call("POST", `/comment/${root._id}/resolve`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("POST", `/comment/${root._id}/resolve`, { token: t.outsider.token }), 404, "NotFoundError");
  });
});
