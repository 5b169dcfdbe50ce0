/** POST /webhook/delivery/{id}/redeliver (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable, type TestTable } from "../../support/tableHarness";
import { receiverLog } from "../../support/automations";
import { auditOf, deliveriesWhen, hookKey, pump, received, subscribe, tokenIdOf } from "../../support/webhooks";

let t: Tenant;
let table: TestTable;
beforeAll(async () => {
  t = await seedTenant();
  table = await makeTable(t.owner.token, t.projectId, "Redeliver");
});

describe("POST /webhook/delivery/{id}/redeliver", () => {
  it("sends a failed delivery again (same webhook-id and entries); delivered, it moves the cursor on", async () => {
    const key = hookKey("redeliver");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId } }, { statuses: "400,200", holdMs: "300" });
    const row = await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "a" });
    await pump();
    const [failed] = await deliveriesWhen(t, sub._id, (l) => l[0]?.status === "failed");
    expect((await ok("GET", `/webhook/${sub._id}`, { token: t.owner.token })).data.consecutiveFailures).toBe(1);
    expectError(
      await call("POST", `/webhook/delivery/${failed._id}/redeliver`, { token: t.viewer.token }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/webhook/delivery/${failed._id}/redeliver`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    const again = (await ok("POST", `/webhook/delivery/${failed._id}/redeliver`, { token: t.owner.token })).data;
    expect(again).toMatchObject({ _id: failed._id, status: "pending" });
    const audited = await auditOf(t, "webhook.redelivered", failed._id);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      projectId: t.projectId,
      actor: { type: "user", userId: t.owner.id, tokenId: await tokenIdOf(t.owner.token) },
      clientAddress: expect.any(String),
      changes: { status: { before: "failed", after: "pending" } },
    });
    // One attempt at a time: a second redelivery while the first is in flight is 409.
    expectError(
      await call("POST", `/webhook/delivery/${failed._id}/redeliver`, { token: t.owner.token }),
      409,
      "ConflictError",
    );
    const [delivered] = await deliveriesWhen(t, sub._id, (l) => l[0]?.status === "delivered");
    expect(delivered.attempts.map((a: any) => a.httpStatus)).toEqual([400, 200]);
    const reqs = await received(key, sub.secret, 2);
    expect(reqs.map((r) => r.headers["webhook-id"])).toEqual([failed._id, failed._id]);
    expect(reqs[1]!.body).toEqual(reqs[0]!.body);
    expect(reqs[0]!.body.entries[0].recordId).toBe(row.row._id);
    // The cursor moved past the entry: a tick sends nothing more.
    expect((await ok("GET", `/webhook/${sub._id}`, { token: t.owner.token })).data.consecutiveFailures).toBe(0);
    await pump();
    expect(await receiverLog(key)).toHaveLength(2);
    // The refused redeliveries (403, 404, 409) recorded nothing.
    expect(await auditOf(t, "webhook.redelivered", failed._id)).toHaveLength(1);
  });

  it("an unknown delivery is 404", async () => {
    expectError(await call("POST", `/webhook/delivery/nope/redeliver`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
