/** POST /webhook/{id}/replay (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable, type TestTable } from "../../support/tableHarness";
import { textToBase64Url } from "../../../src/lib/base64";
import { auditOf, hookKey, pump, received, receivedEntries, subscribe, tokenIdOf } from "../../support/webhooks";

let t: Tenant;
let table: TestTable;
beforeAll(async () => {
  t = await seedTenant();
  table = await makeTable(t.owner.token, t.projectId, "Replay");
});

describe("POST /webhook/{id}/replay", () => {
  it("delivers the entries after a cursor again, in order", async () => {
    const key = hookKey("replay");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId } });
    const ids: string[] = [];
    for (const n of ["a", "b", "c"])
      ids.push((await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: n })).row._id);
    const first = await receivedEntries(key, sub.secret, 3);
    expect(first.map((e: any) => e.recordId)).toEqual(ids);
    const sent = (await received(key, sub.secret, 1)).length;
    const replayed = await ok("POST", `/webhook/${sub._id}/replay`, {
      token: t.owner.token,
      body: { cursor: first[0].cursor },
    });
    expect(replayed.data).toMatchObject({ _id: sub._id, status: "active" });
    await pump();
    const second = (await received(key, sub.secret, sent + 1)).slice(sent);
    expect(second.flatMap((r) => r.body.entries.map((e: any) => e.recordId))).toEqual(ids.slice(1));
    // A cursor from GET /changes works too.
    const feed = await ok("GET", `/changes?tableId=${table.tableId}`, { token: t.owner.token });
    const fromFeed = feed.data.findIndex((e: any) => e.recordId === ids[1]);
    await ok("POST", `/webhook/${sub._id}/replay`, {
      token: t.owner.token,
      body: { cursor: feed.data[fromFeed].cursor },
    });
    await pump();
    const [third] = (await received(key, sub.secret, sent + 2)).slice(sent + 1);
    expect(third!.body.entries.map((e: any) => e.recordId)).toEqual(ids.slice(2));
    // Each replay is audited, the cursor before and after (as GET /webhook/{id} shows cursors).
    const entries = await auditOf(t, "webhook.replayed", sub._id);
    expect(entries).toHaveLength(2);
    expect(entries[1]).toMatchObject({
      actor: { type: "user", userId: t.owner.id, tokenId: await tokenIdOf(t.owner.token) },
      clientAddress: expect.any(String),
      changes: { cursor: { before: expect.any(String), after: expect.any(String) } },
    });
    const position = (c: string) => Buffer.from(c, "base64url").toString().split(".").slice(0, 2).join(".");
    expect(position(entries[1].changes.cursor.after)).toBe(position(first[0].cursor));
    expect(position(entries[1].changes.cursor.before)).toBe(position(first[2].cursor));
  });

  it("a cursor past retention is 410, a malformed one 400; viewers 403, outsiders 404", async () => {
    const sub = await subscribe(t, hookKey("replay-errors"));
    const old = textToBase64Url("1.x.1000");
    expectError(
      await call("POST", `/webhook/${sub._id}/replay`, { token: t.owner.token, body: { cursor: old } }),
      410,
      "GoneError",
    );
    expectError(
      await call("POST", `/webhook/${sub._id}/replay`, { token: t.owner.token, body: { cursor: "zzz" } }),
      400,
      "ValidationError",
    );
    const cursor = sub.cursor;
    expectError(
      await call("POST", `/webhook/${sub._id}/replay`, { token: t.viewer.token, body: { cursor } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/webhook/${sub._id}/replay`, { token: t.outsider.token, body: { cursor } }),
      404,
      "NotFoundError",
    );
  });
});
