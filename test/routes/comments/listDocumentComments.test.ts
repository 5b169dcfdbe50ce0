/**
 * GET /document/{documentId}/comments (docs/api-guide.md › Comments): threads with replies, filters and paging;
 * anchors that follow their block through a room edit and a PUT, and are detached when it is deleted; the room's
 * `comments` message.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { connect, para } from "../../support/collab-peer";
import { docThread, seedCommentTenant, type CommentTenant } from "../../support/comments";
import { finishedRuns } from "../../support/automations";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

const list = async (documentId: string, query: Record<string, string | number> = {}, token = t.viewer.token) =>
  ok("GET", `/document/${documentId}/comments`, { token, query });

async function newDoc(blocks: unknown[]) {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name: "Commented", type: "DOCUMENT" },
  });
  await ok("PUT", `/document/${doc.data._id}/content`, { token: t.owner.token, body: { blocks } });
  return doc.data._id as string;
}

async function until<T>(probe: () => Promise<T>, check: (v: T) => boolean, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("listDocumentComments", () => {
  it("lists threads oldest first with their replies, filtered by status and block, a page at a time", async () => {
    const docId = await newDoc([para("a", "one"), para("b", "two")]);
    const tt = { ...t, docId };
    const first = await docThread(tt, t.owner.token, "On a", { blockId: "a" });
    const reply = (await ok("POST", `/comment/${first._id}/reply`, { token: t.commenter.token, body: { body: "Yes" } }))
      .data;
    const second = await docThread(tt, t.editor.token, "On b", { blockId: "b" });
    await ok("POST", `/comment/${second._id}/resolve`, { token: t.commenter.token });
    const all = await list(docId);
    expect(all.data.map((c: any) => c._id)).toEqual([first._id, second._id]);
    expect(all.data[0].replies.map((r: any) => r._id)).toEqual([reply._id]);
    expect(all.data[1]).toMatchObject({ status: "resolved", resolvedBy: t.commenter.id, replies: [] });
    expect((await list(docId, { status: "open" })).data.map((c: any) => c._id)).toEqual([first._id]);
    expect((await list(docId, { status: "resolved" })).data.map((c: any) => c._id)).toEqual([second._id]);
    expect((await list(docId, { blockId: "b" })).data.map((c: any) => c._id)).toEqual([second._id]);
    const page1 = await list(docId, { limit: 1 });
    expect(page1.data.map((c: any) => c._id)).toEqual([first._id]);
    const page2 = await list(docId, { limit: 1, cursor: page1.nextCursor });
    expect(page2).toMatchObject({ data: [{ _id: second._id }], nextCursor: null });
  });

  it("is 404 to an outsider, 400 for a cursor it did not issue", async () => {
    expectError(await call("GET", `/document/${t.docId}/comments`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/document/${t.docId}/comments`, { token: t.owner.token, query: { cursor: "bogus" } }),
      400,
      "ValidationError",
    );
  });

  it("keeps an anchor through a PUT that keeps its block and detaches it when the block is deleted, then re-attaches", async () => {
    const docId = await newDoc([para("keep", "kept"), para("gone", "to delete")]);
    const tt = { ...t, docId };
    const kept = await docThread(tt, t.owner.token, "Kept", { blockId: "keep", start: 0, end: 4 });
    const doomed = await docThread(tt, t.owner.token, "Doomed", { blockId: "gone" });
    const put = (blocks: unknown[]) =>
      ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks } });
    await put([para("new", "inserted"), para("keep", "kept, edited"), para("gone", "still here")]);
    const detachedOf = async () =>
      Object.fromEntries((await list(docId)).data.map((c: any) => [c._id, c.detached])) as Record<string, boolean>;
    expect(await detachedOf()).toEqual({ [kept._id]: false, [doomed._id]: false });
    await put([para("new", "inserted"), { ...para("keep", "kept"), children: [] }]);
    expect(await detachedOf()).toEqual({ [kept._id]: false, [doomed._id]: true });
    const thread = (await ok("GET", `/comment/${doomed._id}`, { token: t.owner.token })).data;
    expect(thread).toMatchObject({ detached: true, target: { anchor: { blockId: "gone" } }, body: "Doomed" });
    await put([para("keep", "kept"), para("gone", "back")]);
    expect(await detachedOf()).toEqual({ [kept._id]: false, [doomed._id]: false });
  });

  it("detaches through the room's write-back, and tells connected clients when a thread changes", async () => {
    const docId = await newDoc([para("p1", "first"), para("p2", "second")]);
    const tt = { ...t, docId };
    const peer = await connect(docId, { token: t.editor.token });
    const c = await docThread(tt, t.owner.token, "On p2", { blockId: "p2" });
    await peer.until(() => peer.comments.length > 0, "the comments message");
    expect(peer.comments[0]).toEqual({ type: "comments", change: "created", threadId: c._id, commentId: c._id });
    peer.write([para("p1", "first, edited live")]);
    await until(
      () => ok("GET", `/comment/${c._id}`, { token: t.owner.token }),
      (b) => b.data.detached === true,
      "the write-back to detach the thread",
    );
    await ok("POST", `/comment/${c._id}/resolve`, { token: t.owner.token });
    await peer.until(() => peer.comments.some((m) => m.change === "resolved"), "the resolved message");
    peer.close();
  });

  it("tells connected clients a thread was detached or attached again, and emits comment.updated for it", async () => {
    const docId = await newDoc([para("a1", "stays"), para("a2", "goes")]);
    const tt = { ...t, docId };
    const automation = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "On detach",
          triggers: [{ event: "comment.updated", filter: { documentId: docId } }],
          actions: [{ spec: { kind: "notify", title: "Thread changed" } }],
        },
      })
    ).data;
    const c = await docThread(tt, t.owner.token, "On a2", { blockId: "a2" });
    const peer = await connect(docId, { token: t.editor.token });
    // A PUT while clients are connected (through the room): the block goes, the thread is detached.
    await ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks: [para("a1", "stays")] } });
    await peer.until(() => peer.comments.some((m) => m.change === "detached"), "the detached message");
    expect(peer.comments.find((m) => m.change === "detached")).toEqual({
      type: "comments",
      change: "detached",
      threadId: c._id,
      commentId: c._id,
    });
    const [run] = await finishedRuns(t.owner.token, automation._id);
    expect(run.trigger).toMatchObject({ event: "comment.updated", documentId: docId });
    // The block comes back: attached again, and said so.
    await ok("PUT", `/document/${docId}/content`, {
      token: t.owner.token,
      body: { blocks: [para("a1", "stays"), para("a2", "back")] },
    });
    await peer.until(() => peer.comments.some((m) => m.change === "attached"), "the attached message");
    expect((await ok("GET", `/comment/${c._id}`, { token: t.owner.token })).data.detached).toBe(false);
    // A write that changes no anchor says nothing.
    const before = peer.comments.length;
    await ok("PUT", `/document/${docId}/content`, {
      token: t.owner.token,
      body: { blocks: [para("a1", "edited"), para("a2", "back")] },
    });
    await ok("POST", `/comment/${c._id}/resolve`, { token: t.owner.token });
    await peer.until(() => peer.comments.some((m) => m.change === "resolved"), "the resolved message");
    expect(peer.comments.slice(before).map((m) => m.change)).toEqual(["resolved"]);
    peer.close();
  });
});
