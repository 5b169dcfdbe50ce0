/** PUT /comment/{commentId}/reaction/{emoji} (docs/api-guide.md › Comments). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const put = (id: string, emoji: string, token: string) =>
  call("PUT", `/comment/${id}/reaction/${encodeURIComponent(emoji)}`, { token });

describe("putCommentReaction", () => {
  it("adds the caller's reaction once, grouping users by emoji", async () => {
    const c = await docThread(t, t.owner.token, "React");
    await put(c._id, "👍", t.owner.token);
    await put(c._id, "👍", t.owner.token);
    await put(c._id, "👍🏽", t.commenter.token);
    const res = await put(c._id, "👍", t.commenter.token);
    expect(res.status).toBe(200);
    expect(res.body.data.reactions).toEqual([
      { emoji: "👍", userIds: [t.owner.id, t.commenter.id] },
      { emoji: "👍🏽", userIds: [t.commenter.id] },
    ]);
  });

  it("refuses what is not one emoji (400), a viewer (403), an outsider (404), a tombstone (409)", async () => {
    const c = await docThread(t, t.owner.token, "React");
    for (const bad of ["x", "01HABCDEF", "👍👍", "🎉".repeat(9)])
      expectError(await put(c._id, bad, t.owner.token), 400, "ValidationError");
    expectError(await put(c._id, "👍", t.viewer.token), 403, "ForbiddenError");
    expectError(await put(c._id, "👍", t.outsider.token), 404, "NotFoundError");
    await ok("DELETE", `/comment/${c._id}`, { token: t.owner.token });
    expectError(await put(c._id, "👍", t.owner.token), 409, "ConflictError");
  });
});
