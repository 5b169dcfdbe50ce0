/** DELETE /webhook/{id} (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { receiverLog, sleep } from "../../support/automations";
import { hookKey, pump, subscribe } from "../../support/webhooks";

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
  });
});
