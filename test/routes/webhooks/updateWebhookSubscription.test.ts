/** PATCH /webhook/{id} (docs/api-guide.md › Webhook subscriptions): events, columnIds, URL, status. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { hookKey, pump, received, subscribe } from "../../support/webhooks";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 1);
});

const put = (rowId: string, columnId: string, data: unknown) =>
  ok("PUT", `/table/row/${rowId}/cell/${columnId}`, { token: t.editor.token, body: { data } });

describe("PATCH /webhook/{id}", () => {
  it("columnIds: a row.updated that changes none of them is skipped; changed, the filter follows", async () => {
    const key = hookKey("columns");
    const rowId = b.rowIds[0]!;
    const sub = await subscribe(t, key, {
      scope: { tableId: b.tableId },
      events: ["row.updated"],
      columnIds: [b.qty],
    });
    await put(rowId, b.price, 7);
    await put(rowId, b.qty, 4);
    await pump();
    const [first] = await received(key, sub.secret, 1);
    // The price change and the totals it recomputed are skipped; the qty change goes (its recomputed total does not).
    expect(first!.body.entries.map((e: any) => e.changes)).toEqual([{ [b.qty]: { before: 0, after: 4 } }]);
    const patched = await ok("PATCH", `/webhook/${sub._id}`, {
      token: t.owner.token,
      body: { columnIds: [b.total], description: "Totals" },
    });
    expect(patched.data).toMatchObject({ columnIds: [b.total], description: "Totals", events: ["row.updated"] });
    await put(rowId, b.price, 1);
    await pump();
    const [, second] = await received(key, sub.secret, 2);
    expect(second!.body.entries.map((e: any) => e.changes)).toEqual([
      { [b.total]: { before: 28, after: 4, derived: true } },
    ]);
  });

  it("events: a kind outside them is skipped", async () => {
    const key = hookKey("events");
    const sub = await subscribe(t, key, { scope: { tableId: b.tableId }, events: ["row.deleted"] });
    const row = (await ok("POST", `/table/${b.tableId}/row`, { token: t.owner.token, body: { cells: {} } })).data.row;
    await ok("DELETE", `/table/row/${row._id}`, { token: t.owner.token });
    await pump();
    const [req] = await received(key, sub.secret, 1);
    expect(req!.body.entries.map((e: any) => [e.kind, e.recordId])).toEqual([["row.deleted", row._id]]);
  });

  it("a viewer is 403, an outsider 404, a private URL 422, an unknown member 400; read-only members are ignored", async () => {
    const sub = await subscribe(t, hookKey("patch-errors"));
    const path = `/webhook/${sub._id}`;
    expectError(
      await call("PATCH", path, { token: t.viewer.token, body: { description: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", path, { token: t.outsider.token, body: { description: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PATCH", path, { token: t.owner.token, body: { url: "https://192.168.1.1/x" } }),
      422,
      "UnprocessableEntityError",
    );
    expectError(await call("PATCH", path, { token: t.owner.token, body: { nope: 1 } }), 400, "ValidationError");
    const { secret: _secret, ...read } = sub;
    const back = await ok("PATCH", path, { token: t.owner.token, body: { ...read, description: "Back" } });
    expect(back.data).toMatchObject({ _id: sub._id, description: "Back", ownerId: t.owner.id });
    const disabled = await ok("PATCH", path, { token: t.owner.token, body: { status: "disabled" } });
    expect(disabled.data).toMatchObject({ status: "disabled", disabledReason: expect.any(String) });
  });
});
