/** GET /webhook/{id}/deliveries (docs/api-guide.md › Webhook subscriptions): batches in order, failures, auto-disable. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, bulkRows, makeTable, type TestTable } from "../../support/tableHarness";
import { eventually, receiverLog } from "../../support/automations";
import { auditOf, deliveriesWhen, hookKey, pump, received, subscribe } from "../../support/webhooks";

let t: Tenant;
let table: TestTable;
beforeAll(async () => {
  t = await seedTenant();
  table = await makeTable(t.owner.token, t.projectId, "Deliveries");
});

describe("GET /webhook/{id}/deliveries", () => {
  it("250 changes arrive as batches of 100, 100 and 50, in commit order, each delivery listed", async () => {
    const key = hookKey("batches");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId }, events: ["row.created"] });
    const rows = await bulkRows(
      t.owner.token,
      table.tableId,
      Array.from({ length: 250 }, (_, i) => ({ [table.nameColumnId]: `n${i}` })),
    );
    await pump();
    const reqs = await received(key, sub.secret, 3);
    expect(reqs.map((r) => r.body.entries.length)).toEqual([100, 100, 50]);
    const entries = reqs.flatMap((r) => r.body.entries);
    expect(entries.map((e: any) => e.recordId)).toEqual(rows.map((r: any) => r._id));
    expect(entries.every((e: any) => e.kind === "row.created")).toBe(true);
    for (const r of reqs) expect(r.body.cursor).toBe(r.body.entries.at(-1).cursor);
    const list = await deliveriesWhen(t, sub._id, (l) => l.length === 3 && l.every((d) => d.status === "delivered"));
    // Newest first; each delivery's id is the webhook-id its requests carried.
    expect(list.map((d) => d.entryCount)).toEqual([50, 100, 100]);
    expect(list.map((d) => d._id)).toEqual(reqs.map((r) => r.headers["webhook-id"]).reverse());
    expect(list[0].attempts).toMatchObject([{ httpStatus: 200 }]);
    const page = await ok("GET", `/webhook/${sub._id}/deliveries`, { token: t.owner.token, query: { limit: "2" } });
    expect(page.data).toHaveLength(2);
    const rest = await ok("GET", `/webhook/${sub._id}/deliveries`, {
      token: t.owner.token,
      query: { limit: "2", cursor: page.nextCursor },
    });
    expect(rest.data.map((d: any) => d._id)).toEqual([list[2]._id]);
    expect(rest.nextCursor).toBeNull();
    // Nothing new: the next tick sends nothing.
    await pump();
    expect(await receiverLog(key)).toHaveLength(3);
  });

  it("a batch ends before 1 MB of entries: large rows split into more deliveries, none lost or reordered", async () => {
    const key = hookKey("bytes");
    const big = await makeTable(t.owner.token, t.projectId, "Big cells");
    const sub = await subscribe(t, key, { scope: { tableId: big.tableId }, events: ["row.created"] });
    const rows = await bulkRows(
      t.owner.token,
      big.tableId,
      Array.from({ length: 15 }, (_, i) => ({ [big.nameColumnId]: `${i}`.padEnd(100_000, "x") })),
    );
    await pump();
    const reqs = await received(key, sub.secret, 2);
    await deliveriesWhen(t, sub._id, (l) => l.length === 2 && l.every((d) => d.status === "delivered"));
    expect(reqs.map((r) => r.body.entries.length)).toEqual([9, 6]);
    expect(reqs.flatMap((r) => r.body.entries.map((e: any) => e.recordId))).toEqual(rows.map((r: any) => r._id));
  });

  it("after 20 failed deliveries in a row the subscription is disabled and its owner told; re-enabled it goes on", async () => {
    const key = hookKey("disable");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId } }, { statuses: "400" });
    const row = await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "x" });
    for (let i = 1; i <= 20; i++)
      await eventually(async () => {
        await pump();
        return (await receiverLog(key)).length >= i;
      });
    const disabled = await eventually(async () => {
      const s = (await ok("GET", `/webhook/${sub._id}`, { token: t.owner.token })).data;
      return s.status === "disabled" ? s : null;
    });
    expect(disabled).toMatchObject({ consecutiveFailures: 20 });
    expect(disabled.disabledReason).toMatch(/20 deliveries in a row failed.*HTTP 400/);
    const reqs = await received(key, sub.secret, 20);
    // Every attempt carried the same entry: the cursor never moved past it.
    expect(reqs.every((r) => r.body.entries[0].recordId === row.row._id)).toBe(true);
    const notices = await eventually(async () => {
      const list = (await ok("GET", "/notification/all", { token: t.owner.token })).data;
      const mine = list.filter((n: any) => n.kind === "webhook.subscription.disabled");
      return mine.length ? mine : null;
    });
    expect(notices).toHaveLength(1);
    expect(notices[0].data).toMatchObject({ subscriptionId: sub._id });
    // In the audit log once, by the system (no request made it, so no client address).
    const audited = await auditOf(t, "webhook.disabled", sub._id);
    expect(audited).toHaveLength(1);
    expect(audited[0]).toMatchObject({
      actor: { type: "system" },
      clientAddress: null,
      changes: {
        status: { before: "active", after: "disabled" },
        disabledReason: { before: null, after: disabled.disabledReason },
      },
    });
    const failed = await ok("GET", `/webhook/${sub._id}/deliveries`, {
      token: t.owner.token,
      query: { status: "failed", limit: "100" },
    });
    expect(failed.data).toHaveLength(20);
    // Disabled: a tick sends nothing.
    await pump();
    expect(await receiverLog(key)).toHaveLength(20);
    // The receiver fixed, re-enabled: the same entry goes out, now delivered.
    await ok("PATCH", `/webhook/${sub._id}`, { token: t.owner.token, body: { url: sub.url.replace("400", "200") } });
    const active = (await ok("PATCH", `/webhook/${sub._id}`, { token: t.owner.token, body: { status: "active" } }))
      .data;
    expect(active).toMatchObject({ status: "active", consecutiveFailures: 0, disabledReason: null });
    await pump();
    const [last] = (await received(key, sub.secret, 21)).slice(20);
    expect(last!.body.entries[0].recordId).toBe(row.row._id);
  });

  it("is readable by workspace members only (outsiders 404), and validates its query", async () => {
    const sub = await subscribe(t, hookKey("read"));
    await ok("GET", `/webhook/${sub._id}/deliveries`, { token: t.viewer.token });
    expectError(await call("GET", `/webhook/${sub._id}/deliveries`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/webhook/${sub._id}/deliveries?status=gone`, { token: t.owner.token }),
      400,
      "ValidationError",
    );
  });
});
