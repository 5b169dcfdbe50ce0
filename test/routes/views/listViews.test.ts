/** listViews: GET /table/{tableId}/views (src/routes/views/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok } from "../../support/harness";
import { viewsFixture, type ViewsFixture } from "../../support/views";

let f: ViewsFixture;
beforeAll(async () => {
  f = await viewsFixture();
});

describe("listViews", () => {
  it("lists a table's live views in the order they were made, to any reader of the table", async () => {
    const first = await f.save("First");
    const second = await f.save("Second");
    const gone = await f.save("Gone");
    await ok("DELETE", `/table/view/${gone._id}`, { token: f.t.editor.token });
    const listed = await ok("GET", `/table/${f.tableId}/views`, { token: f.t.viewer.token });
    expect(listed.data.map((v: { _id: string }) => v._id)).toEqual([first._id, second._id]);
    expect(listed.data[0]).toMatchObject({ name: "First", tableId: f.tableId });
  });

  it("is 404 for a caller who cannot read the table, and for a table that does not exist", async () => {
    expectError(await call("GET", `/table/${f.tableId}/views`, { token: f.t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/table/01J0000000000000000000000000/views`, { token: f.t.viewer.token }),
      404,
      "NotFoundError",
    );
  });
});
