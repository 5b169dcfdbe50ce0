/**
 * GET /table/row/{rowId}/comments (docs/api-guide.md › Comments), and the counts row listings and document reads
 * carry (`commentCount`, `openCommentCount`) within their round-trip budgets.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { docThread, rowThread, seedCommentTenant, type CommentTenant } from "../../support/comments";

let t: CommentTenant;
beforeAll(async () => {
  t = await seedCommentTenant();
});

describe("listRowComments", () => {
  it("lists the row's threads with replies to a viewer; an outsider gets 404", async () => {
    const a = await rowThread(t, t.owner.token, "Row thread");
    const cell = await rowThread(t, t.commenter.token, "Cell thread", t.nameColumnId);
    await ok("POST", `/comment/${cell._id}/reply`, { token: t.editor.token, body: { body: "Answer" } });
    const got = await ok("GET", `/table/row/${t.rowId}/comments`, { token: t.viewer.token });
    expect(got.data.map((c: any) => c._id)).toEqual([a._id, cell._id]);
    expect(got.data[1].replies.map((r: any) => r.body)).toEqual(["Answer"]);
    expect(got.nextCursor).toBeNull();
    expectError(await call("GET", `/table/row/${t.rowId}/comments`, { token: t.outsider.token }), 404, "NotFoundError");
  });

  it("counts live comments and those in open threads on row listings and document reads, in one round trip", async () => {
    const { row } = (await ok("POST", `/table/${t.tableId}/row`, { token: t.owner.token, body: { cells: {} } })).data;
    const tt = { ...t, rowId: row._id };
    const open = await rowThread(tt, t.owner.token, "open");
    await ok("POST", `/comment/${open._id}/reply`, { token: t.owner.token, body: { body: "reply" } });
    const closed = await rowThread(tt, t.owner.token, "resolved");
    await ok("POST", `/comment/${closed._id}/resolve`, { token: t.owner.token });
    const gone = await rowThread(tt, t.owner.token, "deleted");
    await ok("DELETE", `/comment/${gone._id}`, { token: t.owner.token });
    const res = await call("GET", `/table/${t.tableId}/rows`, { token: t.viewer.token });
    const listed = res.body.data.find((r: any) => r._id === row._id);
    expect(listed).toMatchObject({ commentCount: 3, openCommentCount: 2 });
    expect(Number(res.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(2);

    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Counted", type: "DOCUMENT" },
    });
    expect(doc.data).toMatchObject({ commentCount: 0, openCommentCount: 0 });
    const d = { ...t, docId: doc.data._id };
    const c1 = await docThread(d, t.owner.token, "one");
    await docThread(d, t.owner.token, "two");
    await ok("POST", `/comment/${c1._id}/resolve`, { token: t.owner.token });
    const read = await call("GET", `/document/${d.docId}`, { token: t.viewer.token });
    expect(read.body.data).toMatchObject({ commentCount: 2, openCommentCount: 1 });
    expect(Number(read.headers.get("x-d1-round-trips"))).toBe(1);
    const listedDocs = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(listedDocs.data.find((x: any) => x._id === d.docId)).toMatchObject({ commentCount: 2, openCommentCount: 1 });
    // The counts are part of the representation: an If-Match from GET still matches.
    const patched = await call("PATCH", `/document/${d.docId}`, {
      token: t.owner.token,
      body: { name: "Counted again" },
      headers: { "if-match": read.headers.get("etag")! },
    });
    expect(patched.status).toBe(200);
  });
});
