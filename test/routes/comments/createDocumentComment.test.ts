/** POST /document/{documentId}/comment (docs/api-guide.md › Comments): threads on documents, roles, mentions. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser } from "../../support/harness";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";
import { finishedRuns } from "../../support/automations";

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
    // A commenter reads but does not edit: content, documents and rows stay out of reach (403).
    expect((await call("GET", `/document/${t.docId}`, { token: t.commenter.token })).status).toBe(200);
    for (const [method, path, body] of [
      ["PUT", `/document/${t.docId}/content`, { blocks: [] }],
      ["PATCH", `/document/${t.docId}`, { name: "Renamed" }],
      ["POST", `/table/${t.tableId}/row`, { cells: {} }],
    ] as const)
      expectError(await call(method, path, { token: t.commenter.token, body }), 403, "ForbiddenError");
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

describe("createDocumentComment as an automation event", () => {
  it("runs an automation triggered by comment.created on the document", async () => {
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "On comment",
          triggers: [{ event: "comment.created", filter: { documentId: t.doc2Id } }],
          actions: [{ spec: { kind: "notify", title: "Commented" } }],
        },
      })
    ).data;
    await ok("POST", `/document/${t.doc2Id}/comment`, { token: t.editor.token, body: { body: "Triggering" } });
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(run.trigger).toMatchObject({ event: "comment.created", documentId: t.doc2Id });
  });
});
