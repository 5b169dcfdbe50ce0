/** DELETE /comment/{commentId} (docs/api-guide.md › Comments): the author or a project admin; a tombstone stays. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("deleteComment", () => {
  it("leaves a tombstone in the thread, its replies kept", async () => {
    const root = await docThread(t, t.editor.token, "Root with @[" + t.viewer.id + "]");
    await ok("PUT", `/comment/${root._id}/reaction/${encodeURIComponent("👍")}`, { token: t.owner.token });
    const replyBody = { body: "Reply" };
    const reply = (await ok("POST", `/comment/${root._id}/reply`, { token: t.owner.token, body: replyBody })).data;
    const gone = (await ok("DELETE", `/comment/${root._id}`, { token: t.editor.token })).data;
    expect(gone).toMatchObject({ _id: root._id, isDeleted: true, body: "", reactions: [], mentions: [] });
    const listed = (await ok("GET", `/document/${t.docId}/comments`, { token: t.viewer.token })).data;
    const thread = listed.find((x: any) => x._id === root._id);
    expect(thread).toMatchObject({ isDeleted: true, body: "", replies: [{ _id: reply._id, body: "Reply" }] });
    expect((await ok("DELETE", `/comment/${root._id}`, { token: t.editor.token })).data.isDeleted).toBe(true);
  });

  it("lets a project admin delete anyone's comment; another commenter 403, an outsider 404", async () => {
    const c = await docThread(t, t.commenter.token, "Someone's");
    expectError(await call("DELETE", `/comment/${c._id}`, { token: t.editor.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/comment/${c._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expect((await ok("DELETE", `/comment/${c._id}`, { token: t.owner.token })).data.isDeleted).toBe(true);
  });
});
