/** createView: POST /table/{tableId}/view (src/routes/views/create.ts) — its happy path, errors and request-path checks. */
/** Views (docs/api-guide.md › Views and aggregates): CRUD, ETag/If-Match, Idempotency-Key, rows, warnings, access. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { feedEnd, invoicesTable, viewEntriesAfter } from "../../support/views";

let t: Tenant;
let tableId: string;
let amount: string;
let note: string;

beforeAll(async () => {
  t = await seedTenant();
  ({ tableId, amount, note } = await invoicesTable(t.owner.token, t.projectId));
});

describe("views", () => {
  it("a bad view is 422 with the path; strangers get 404 everywhere", async () => {
    const bad = await call("POST", `/table/${tableId}/view`, {
      token: t.owner.token,
      body: { name: "Bad", filter: { and: [{ columnId: amount, op: "contains", value: "1" }] } },
    });
    expectError(bad, 422, "UnprocessableEntityError");
    expect(bad.body.details[0].path).toBe("filter.and.0.op");
    const view = (await ok("POST", `/table/${tableId}/view`, { token: t.owner.token, body: { name: "Mine" } })).data;
    const stranger = await registerUser();
    for (const [method, path] of [
      ["GET", `/table/view/${view._id}`],
      ["GET", `/table/view/${view._id}/rows`],
      ["GET", `/table/${tableId}/views`],
      ["PATCH", `/table/view/${view._id}`],
      ["DELETE", `/table/view/${view._id}`],
    ] as const)
      expectError(
        await call(method, path, { token: stranger.token, ...(method === "PATCH" ? { body: { name: "x" } } : {}) }),
        404,
        "NotFoundError",
      );
  });

  it("records view.created in the table's change feed with the view's members as after", async () => {
    const start = await feedEnd(t.owner.token, tableId);
    const body = { name: "Big", filter: { and: [{ columnId: amount, op: "gt", value: 1000 }] }, hidden: [note] };
    const view = (await ok("POST", `/table/${tableId}/view`, { token: t.editor.token, body })).data;
    const bad = { name: "Bad", filter: { and: [{ columnId: amount, op: "contains", value: "1" }] } };
    expectError(
      await call("POST", `/table/${tableId}/view`, { token: t.editor.token, body: bad }),
      422,
      "UnprocessableEntityError",
    );
    expect(await viewEntriesAfter(t.owner.token, tableId, start)).toEqual([
      [
        "view.created",
        view._id,
        {
          name: { before: null, after: "Big" },
          filter: { before: null, after: body.filter },
          sort: { before: null, after: [] },
          fields: { before: null, after: null },
          hidden: { before: null, after: [note] },
        },
        tableId,
      ],
    ]);
  });
});
