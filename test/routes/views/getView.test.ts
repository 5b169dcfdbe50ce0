/** getView: GET /table/view/{viewId} (src/routes/views/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { viewsFixture, type ViewsFixture } from "../../support/views";

let f: ViewsFixture;
beforeAll(async () => {
  f = await viewsFixture();
});

describe("getView", () => {
  it("answers the view to a reader of its table, with an ETag that If-None-Match turns into 304", async () => {
    const view = await f.save("Big");
    const got = await call("GET", `/table/view/${view._id}`, { token: f.t.viewer.token });
    expect(got.status).toBe(200);
    expect(got.body.data).toMatchObject({ _id: view._id, tableId: f.tableId, name: "Big", warnings: [] });
    const etag = got.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await call("GET", `/table/view/${view._id}`, {
      token: f.t.viewer.token,
      headers: { "If-None-Match": etag! },
    });
    expect(again.status).toBe(304);
  });

  it("is 404 alike for an outsider, an unknown id and a deleted view", async () => {
    const view = await f.save("Gone soon");
    expectError(await call("GET", `/table/view/${view._id}`, { token: f.t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/table/view/01J0000000000000000000000000`, { token: f.t.viewer.token }),
      404,
      "NotFoundError",
    );
    await ok("DELETE", `/table/view/${view._id}`, { token: f.t.editor.token });
    expectError(await call("GET", `/table/view/${view._id}`, { token: f.t.viewer.token }), 404, "NotFoundError");
  });
});
