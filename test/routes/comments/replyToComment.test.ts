/** POST /comment/{commentId}/reply (docs/api-guide.md › Comments). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, rowThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const reply = (id: string, token: string, body: string) =>
  call("POST", `/comment/${id}/reply`, { token, body: { body } });

describe("replyToComment", () => {
  it("replies in the thread (to a reply too), with the thread's target and status", async () => {
    const root = await docThread(t, t.owner.token, "Root", { blockId: "b9" });
    const first = (await reply(root._id, t.commenter.token, "First")).body.data;
    expect(first).toMatchObject({ threadId: root._id, parentId: root._id, authorId: t.commenter.id, status: "open" });
    expect(first.target).toEqual(root.target);
    const second = (await reply(first._id, t.editor.token, "Second")).body.data;
    expect(second).toMatchObject({ threadId: root._id, parentId: first._id });
    const onRow = await rowThread(t, t.owner.token, "Row root");
    expect((await reply(onRow._id, t.owner.token, "On row")).body.data.target).toEqual(onRow.target);
  });

  it("mentions in a reply notify readers and report the others", async () => {
    const root = await docThread(t, t.owner.token, "Root");
    const res = await reply(root._id, t.owner.token, `@[${t.viewer.id}] @[${t.outsider.id}]`);
    expect(res.body.data.unnotified).toEqual([t.outsider.id]);
    const got = (await ok("GET", "/notification/all", { token: t.viewer.token })).data as any[];
    expect(got.some((n) => n.data?.commentId === res.body.data._id)).toBe(true);
  });

  it("refuses a viewer (403), an outsider and a missing comment (404), an empty body (400)", async () => {
    const root = await docThread(t, t.owner.token, "Root");
    expectError(await reply(root._id, t.viewer.token, "x"), 403, "ForbiddenError");
    expectError(await reply(root._id, t.outsider.token, "x"), 404, "NotFoundError");
    expectError(await reply("01NOSUCHCOMMENT000000000000", t.owner.token, "x"), 404, "NotFoundError");
    expectError(await reply(root._id, t.owner.token, " "), 400, "ValidationError");
  });
});
