/** GET /comment/{commentId} (docs/api-guide.md › Comments): readers of the target only; portals never. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser } from "../../support/harness";
import { docThread, rowThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("getComment", () => {
  it("answers a comment to every reader of its target, a document grant included", async () => {
    const c = await docThread(t, t.owner.token, "Visible");
    for (const u of [t.viewer, t.commenter, t.editor])
      expect((await ok("GET", `/comment/${c._id}`, { token: u.token })).data).toMatchObject({ _id: c._id });
    const granted = await registerUser("Granted");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: granted.email, documentId: t.docId, role: "commenter" },
    });
    expect((await ok("GET", `/comment/${c._id}`, { token: granted.token })).data.body).toBe("Visible");
    // A document commenter comments on the document.
    await docThread(t, granted.token, "From a document commenter");
  });

  it("is 404 for an outsider, a missing id, and once the target is deleted", async () => {
    const c = await rowThread(t, t.owner.token, "Row");
    expectError(await call("GET", `/comment/${c._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", "/comment/01NOSUCHCOMMENT000000000000", { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    await ok("DELETE", `/table/row/${t.rowId}`, { token: t.owner.token });
    expectError(await call("GET", `/comment/${c._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
