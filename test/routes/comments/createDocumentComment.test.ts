/** POST /document/{documentId}/comment (docs/api-guide.md › Comments): threads on documents, roles, mentions. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const notices = async (token: string) => (await ok("GET", "/notification/all", { token })).data as any[];

describe("createDocumentComment", () => {
  it("starts an open thread anchored to a block, answering the Comment shape", async () => {
    const c = await docThread(t, t.editor.token, "This **contradicts** section 4", { blockId: "b1", start: 3, end: 9 });
    expect(c).toMatchObject({
      threadId: c._id,
      parentId: null,
      target: { documentId: t.docId, anchor: { blockId: "b1", start: 3, end: 9 } },
      authorId: t.editor.id,
      body: "This **contradicts** section 4",
      editedAt: null,
      isDeleted: false,
      status: "open",
      resolvedBy: null,
      resolvedAt: null,
      reactions: [],
      mentions: [],
      detached: false,
      unnotified: [],
    });
    expect(c._id.slice(-2)).toBe(t.docId.slice(-2));
    expect((await ok("GET", `/comment/${c._id}`, { token: t.viewer.token })).data.body).toBe(c.body);
  });

  it("lets a commenter comment; a viewer reads but may not (403); no access looks like absence (404)", async () => {
    await docThread(t, t.commenter.token, "From a commenter");
    expectError(
      await call("POST", `/document/${t.docId}/comment`, { token: t.viewer.token, body: { body: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/document/${t.docId}/comment`, { token: t.outsider.token, body: { body: "x" } }),
      404,
      "NotFoundError",
    );
  });

  it("keeps bodies to 10,000 characters and refuses an empty one (400)", async () => {
    await docThread(t, t.owner.token, "y".repeat(10_000));
    for (const body of ["y".repeat(10_001), "   ", ""])
      expectError(
        await call("POST", `/document/${t.docId}/comment`, { token: t.owner.token, body: { body } }),
        400,
        "ValidationError",
      );
  });

  it("notifies a mentioned reader once, and lists non-readers (known or not) as unnotified", async () => {
    const stranger = await registerUser("Stranger");
    const body = `@[${t.viewer.id}] and @[${t.viewer.id}], @[${stranger.id}], @[NOSUCHUSER000000000000000000]`;
    const c = await docThread(t, t.editor.token, body);
    expect(c.mentions).toEqual([t.viewer.id, stranger.id, "NOSUCHUSER000000000000000000"]);
    expect(c.unnotified).toEqual([stranger.id, "NOSUCHUSER000000000000000000"]);
    const mine = (await notices(t.viewer.token)).filter((n) => n.data?.commentId === c._id);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ kind: "comment.mention", data: { documentId: t.docId, threadId: c._id } });
    expect((await notices(stranger.token)).some((n) => n.data?.commentId === c._id)).toBe(false);
  });

  it("refuses an anchor whose start is after its end (400)", async () => {
    expectError(
      await call("POST", `/document/${t.docId}/comment`, {
        token: t.owner.token,
        body: { body: "x", anchor: { blockId: "b", start: 5, end: 1 } },
      }),
      400,
      "ValidationError",
    );
  });
});
