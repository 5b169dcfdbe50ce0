/** DELETE /comment/{commentId}/reaction/{emoji} (docs/api-guide.md › Comments). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const path = (id: string, emoji: string) => `/comment/${id}/reaction/${encodeURIComponent(emoji)}`;

describe("deleteCommentReaction", () => {
  it("takes back only the caller's reaction; again changes nothing", async () => {
    const c = await docThread(t, t.owner.token, "React");
    await ok("PUT", path(c._id, "🎉"), { token: t.owner.token });
    await ok("PUT", path(c._id, "🎉"), { token: t.editor.token });
    const after = (await ok("DELETE", path(c._id, "🎉"), { token: t.owner.token })).data;
    expect(after.reactions).toEqual([{ emoji: "🎉", userIds: [t.editor.id] }]);
    expect((await ok("DELETE", path(c._id, "🎉"), { token: t.owner.token })).data.reactions).toEqual(after.reactions);
  });

  it("refuses a viewer (403) and an outsider (404)", async () => {
    const c = await docThread(t, t.owner.token, "React");
    expectError(await call("DELETE", path(c._id, "🎉"), { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", path(c._id, "🎉"), { token: t.outsider.token }), 404, "NotFoundError");
  });
});
