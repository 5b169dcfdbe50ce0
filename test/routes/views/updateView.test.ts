/** updateView: PATCH /table/view/{viewId} (src/routes/views/update.ts) — its happy path, errors and request-path checks. */
/** Views (docs/api-guide.md › Views and aggregates): CRUD, ETag/If-Match, Idempotency-Key, rows, warnings, access. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { feedEnd, invoicesTable, viewEntriesAfter } from "../../support/views";

let t: Tenant;
let tableId: string;
let nameCol: string;
let amount: string;
let note: string;

beforeAll(async () => {
  t = await seedTenant();
  ({ tableId, nameCol, amount, note } = await invoicesTable(t.owner.token, t.projectId));
});

const big = () => ({ and: [{ columnId: amount, op: "gt", value: 1000 }] });

describe("views", () => {
  it("creates, lists, reads, changes and deletes a view with ETag and If-Match", async () => {
    const created = await ok("POST", `/table/${tableId}/view`, {
      token: t.editor.token,
      headers: { "Idempotency-Key": `view-${tableId}` },
      body: { name: "Big", filter: big(), sort: [{ columnId: amount, direction: "desc" }], hidden: [note] },
    });
    const view = created.data;
    expect(view).toMatchObject({ tableId, name: "Big", filter: big(), hidden: [note], fields: null, warnings: [] });
    const replay = await call("POST", `/table/${tableId}/view`, {
      token: t.editor.token,
      headers: { "Idempotency-Key": `view-${tableId}` },
      body: { name: "Big", filter: big(), sort: [{ columnId: amount, direction: "desc" }], hidden: [note] },
    });
    expect(replay.body.data._id).toBe(view._id);
    expect((await ok("GET", `/table/${tableId}/views`, { token: t.viewer.token })).data.map((v: any) => v._id)).toEqual(
      [view._id],
    );
    const got = await call("GET", `/table/view/${view._id}`, { token: t.viewer.token });
    expect(got.status).toBe(200);
    const etag = got.headers.get("etag")!;
    expect(
      (await call("GET", `/table/view/${view._id}`, { token: t.viewer.token, headers: { "If-None-Match": etag } }))
        .status,
    ).toBe(304);
    const rows = await ok("GET", `/table/view/${view._id}/rows`, { token: t.viewer.token });
    expect(rows.data.map((r: any) => r.cells[nameCol])).toEqual(["c", "a"]);
    expect(Object.keys(rows.data[0].cells).sort()).toEqual([nameCol, amount].sort());
    const narrowed = await ok("GET", `/table/view/${view._id}/rows`, {
      token: t.viewer.token,
      query: { filter: JSON.stringify({ and: [{ columnId: nameCol, op: "eq", value: "a" }] }) },
    });
    expect(narrowed.data.map((r: any) => r.cells[nameCol])).toEqual(["a"]);
    expectError(
      await call("PATCH", `/table/view/${view._id}`, { token: t.viewer.token, body: { name: "no" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", `/table/view/${view._id}`, {
        token: t.editor.token,
        headers: { "If-Match": '"stale"' },
        body: { name: "no" },
      }),
      412,
      "PreconditionFailedError",
    );
    const renamed = await call("PATCH", `/table/view/${view._id}`, {
      token: t.editor.token,
      headers: { "If-Match": etag },
      body: { name: "Large" },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ name: "Large", filter: big() });
    expectError(
      await call("DELETE", `/table/view/${view._id}`, { token: t.editor.token, headers: { "If-Match": etag } }),
      412,
      "PreconditionFailedError",
    );
    await ok("DELETE", `/table/view/${view._id}`, { token: t.editor.token });
    expectError(await call("GET", `/table/view/${view._id}`, { token: t.viewer.token }), 404, "NotFoundError");
  });

  it("records view.updated with the changed members only; a change to the same values records nothing", async () => {
    const view = (await ok("POST", `/table/${tableId}/view`, { token: t.editor.token, body: { name: "Log" } })).data;
    const start = await feedEnd(t.owner.token, tableId);
    const patch = (body: object) => ok("PATCH", `/table/view/${view._id}`, { token: t.editor.token, body });
    await patch({ name: "Log 2", sort: [{ columnId: amount, direction: "desc" }] });
    await patch({ name: "Log 2", sort: [{ columnId: amount, direction: "desc" }] });
    await patch({ filter: big() });
    expect(await viewEntriesAfter(t.owner.token, tableId, start)).toEqual([
      [
        "view.updated",
        view._id,
        {
          name: { before: "Log", after: "Log 2" },
          sort: { before: [], after: [{ columnId: amount, direction: "desc" }] },
        },
        tableId,
      ],
      ["view.updated", view._id, { filter: { before: null, after: big() } }, tableId],
    ]);
  });
});
