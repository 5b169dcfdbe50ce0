/** deleteView: DELETE /table/view/{viewId} (src/routes/views/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { feedEnd, viewEntriesAfter, viewsFixture, type ViewsFixture } from "../../support/views";

let f: ViewsFixture;
beforeAll(async () => {
  f = await viewsFixture();
});

describe("deleteView", () => {
  it("deletes a view for a writer of the table; it is then gone from reads and the listing", async () => {
    const view = await f.save("Old");
    const etag = (await call("GET", `/table/view/${view._id}`, { token: f.t.editor.token })).headers.get("etag")!;
    const res = await call("DELETE", `/table/view/${view._id}`, {
      token: f.t.editor.token,
      headers: { "If-Match": etag },
    });
    expect(res.status).toBeLessThan(300);
    expectError(await call("GET", `/table/view/${view._id}`, { token: f.t.viewer.token }), 404, "NotFoundError");
    const listed = await ok("GET", `/table/${f.tableId}/views`, { token: f.t.viewer.token });
    expect(listed.data.map((v: { _id: string }) => v._id)).not.toContain(view._id);
    expectError(await call("DELETE", `/table/view/${view._id}`, { token: f.t.editor.token }), 404, "NotFoundError");
  });

  it("refuses a viewer (403), an outsider (404) and a stale If-Match (412), and keeps the view", async () => {
    const view = await f.save("Kept");
    expectError(await call("DELETE", `/table/view/${view._id}`, { token: f.t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/table/view/${view._id}`, { token: f.t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("DELETE", `/table/view/${view._id}`, { token: f.t.editor.token, headers: { "If-Match": '"stale"' } }),
      412,
      "PreconditionFailedError",
    );
    expect((await ok("GET", `/table/view/${view._id}`, { token: f.t.viewer.token })).data.name).toBe("Kept");
  });

  it("records view.deleted once; a refused delete records nothing", async () => {
    const view = await f.save("Logged");
    const start = await feedEnd(f.t.owner.token, f.tableId);
    expectError(await call("DELETE", `/table/view/${view._id}`, { token: f.t.viewer.token }), 403, "ForbiddenError");
    expect((await call("DELETE", `/table/view/${view._id}`, { token: f.t.editor.token })).status).toBeLessThan(300);
    expect(await viewEntriesAfter(f.t.owner.token, f.tableId, start)).toEqual([
      ["view.deleted", view._id, { isDeleted: { before: false, after: true } }, f.tableId],
    ]);
  });
});
