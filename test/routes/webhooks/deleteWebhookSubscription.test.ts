/** DELETE /webhook/{id} (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { receiverLog, sleep } from "../../support/automations";
import { auditOf, hookKey, pump, subscribe, tokenIdOf } from "../../support/webhooks";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("DELETE /webhook/{id}", () => {
  it("stops deliveries at once; the subscription is gone (404)", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Deleted hook");
    const key = hookKey("delete");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId } });
    expectError(await call("DELETE", `/webhook/${sub._id}`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("DELETE", `/webhook/${sub._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expect((await ok("DELETE", `/webhook/${sub._id}`, { token: t.owner.token })).data).toEqual({
      success: true,
    });
    await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "after" });
    await pump();
    await sleep(500);
    expect(await receiverLog(key)).toEqual([]);
    expectError(await call("GET", `/webhook/${sub._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/webhook/${sub._id}`, { token: t.owner.token }), 404, "NotFoundError");
    // Audited once (the refused and repeated deletes record nothing), with who, their token and address.
    const entries = await auditOf(t, "webhook.deleted", sub._id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: "user", userId: t.owner.id, tokenId: await tokenIdOf(t.owner.token) },
      clientAddress: expect.any(String),
      changes: { isDeleted: { before: false, after: true } },
    });
  });

  it("If-Match: a stale tag is 412 and the subscription stays; the current one deletes it", async () => {
    const sub = await subscribe(t, hookKey("delete-if-match"));
    const path = `/webhook/${sub._id}`;
    const etag = (await call("GET", path, { token: t.owner.token })).headers.get("etag")!;
    await ok("PATCH", path, { token: t.owner.token, body: { description: "Moved on" } });
    expectError(
      await call("DELETE", path, { token: t.owner.token, headers: { "if-match": etag } }),
      412,
      "PreconditionFailedError",
    );
    const current = await call("GET", path, { token: t.owner.token });
    expect(current.status).toBe(200);
    expect(
      (await call("DELETE", path, { token: t.owner.token, headers: { "if-match": current.headers.get("etag")! } }))
        .status,
    ).toBe(200);
    expectError(await call("GET", path, { token: t.owner.token }), 404, "NotFoundError");
    expect(await auditOf(t, "webhook.deleted", sub._id)).toHaveLength(1);
  });
});
