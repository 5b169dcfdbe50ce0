/** PATCH /comment/{commentId} (docs/api-guide.md › Comments): the author edits; `editedAt`; new mentions. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const patch = (id: string, token: string, body: string) => call("PATCH", `/comment/${id}`, { token, body: { body } });

describe("updateComment", () => {
  it("lets the author edit, setting editedAt, and notifies a newly mentioned reader once", async () => {
    const c = await docThread(t, t.commenter.token, "Draft");
    const edited = (await patch(c._id, t.commenter.token, `Final, cc @[${t.viewer.id}] @[${t.outsider.id}]`)).body.data;
    expect(edited).toMatchObject({ body: expect.stringContaining("Final"), mentions: [t.viewer.id, t.outsider.id] });
    expect(edited.editedAt).toEqual(expect.any(Number));
    expect(edited.unnotified).toEqual([t.outsider.id]);
    await patch(c._id, t.commenter.token, `Final again, cc @[${t.viewer.id}]`);
    const got = (await ok("GET", "/notification/all", { token: t.viewer.token })).data as any[];
    expect(got.filter((n) => n.data?.commentId === c._id)).toHaveLength(1);
  });

  it("refuses another reader (403), an outsider (404), a tombstone (409) and an oversize body (400)", async () => {
    const c = await docThread(t, t.owner.token, "Mine");
    expectError(await patch(c._id, t.editor.token, "x"), 403, "ForbiddenError");
    expectError(await patch(c._id, t.outsider.token, "x"), 404, "NotFoundError");
    expectError(await patch(c._id, t.owner.token, "x".repeat(10_001)), 400, "ValidationError");
    await ok("DELETE", `/comment/${c._id}`, { token: t.owner.token });
    expectError(await patch(c._id, t.owner.token, "x"), 409, "ConflictError");
  });
});
