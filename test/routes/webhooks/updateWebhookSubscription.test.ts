/** PATCH /webhook/{id} (docs/api-guide.md › Webhook subscriptions): events, columnIds, URL, status. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { auditOf, hookKey, pump, received, subscribe, tokenIdOf } from "../../support/webhooks";

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

  it("If-Match: a stale tag is 412 and nothing changes; the current one applies the PATCH and answers the new tag", async () => {
    const sub = await subscribe(t, hookKey("patch-if-match"), { description: "Before" });
    const path = `/webhook/${sub._id}`;
    const etag = (await call("GET", path, { token: t.owner.token })).headers.get("etag")!;
    for (const stale of ['"0000"', `W/${etag}`]) {
      const res = await call("PATCH", path, {
        token: t.owner.token,
        headers: { "if-match": stale },
        body: { description: "Lost" },
      });
      expectError(res, 412, "PreconditionFailedError");
    }
    expect((await ok("GET", path, { token: t.owner.token })).data.description).toBe("Before");
    const patched = await call("PATCH", path, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { description: "After" },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.description).toBe("After");
    const now = await call("GET", path, { token: t.owner.token });
    expect(patched.headers.get("etag")).toBe(now.headers.get("etag"));
    expect(now.headers.get("etag")).not.toBe(etag);
    // The tag read before that PATCH is stale now.
    expectError(
      await call("PATCH", path, { token: t.owner.token, headers: { "if-match": etag }, body: { description: "Lost" } }),
      412,
      "PreconditionFailedError",
    );
    expect(
      (await call("PATCH", path, { token: t.owner.token, headers: { "if-match": "*" }, body: { description: "Any" } }))
        .status,
    ).toBe(200);
  });

  it("is audited: webhook.updated with the members that changed; a PATCH that changes nothing, or is refused, is not", async () => {
    const sub = await subscribe(t, hookKey("patch-audit"), { description: "Old" });
    const path = `/webhook/${sub._id}`;
    await ok("PATCH", path, {
      token: t.owner.token,
      headers: { "cf-connecting-ip": "198.51.100.7" },
      body: { description: "New", events: ["*"], status: "disabled" },
    });
    await ok("PATCH", path, { token: t.owner.token, body: { description: "New" } });
    expectError(
      await call("PATCH", path, {
        token: t.owner.token,
        headers: { "if-match": '"0000"' },
        body: { description: "X" },
      }),
      412,
      "PreconditionFailedError",
    );
    expectError(
      await call("PATCH", path, { token: t.viewer.token, body: { description: "X" } }),
      403,
      "ForbiddenError",
    );
    const entries = await auditOf(t, "webhook.updated", sub._id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: "user", userId: t.owner.id, tokenId: await tokenIdOf(t.owner.token) },
      clientAddress: "198.51.100.7",
      changes: {
        description: { before: "Old", after: "New" },
        status: { before: "active", after: "disabled" },
      },
    });
    // `events` was named but did not change.
    expect(Object.keys(entries[0].changes).sort()).toEqual(["description", "status"]);
  });
});
