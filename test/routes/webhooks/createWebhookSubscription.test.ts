/** POST /webhook (docs/api-guide.md › Webhook subscriptions): a URL fed with the change log of a project or table. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { makeBulkTable, type BulkTable } from "../../support/bulkRows";
import { hookUrl } from "../../support/automations";
import { auditOf, hookKey, received, receivedEntries, subscribe, tokenIdOf } from "../../support/webhooks";

let t: Tenant;
let b: BulkTable & { rowIds: string[] };
beforeAll(async () => {
  t = await seedTenant();
  b = await makeBulkTable(t, 1);
});

describe("POST /webhook", () => {
  it("answers 201 with the secret once, and delivers a row write with the formula cell it recomputed, signed", async () => {
    const rowId = b.rowIds[0]!;
    await ok("PUT", `/table/row/${rowId}/cell/${b.qty}`, { token: t.editor.token, body: { data: 3 } });
    const key = hookKey("formula");
    const sub = await subscribe(t, key, { scope: { tableId: b.tableId }, events: ["row.updated"] });
    expect(sub).toMatchObject({
      scope: { tableId: b.tableId },
      projectId: t.projectId,
      events: ["row.updated"],
      status: "active",
      url: hookUrl(key),
    });
    expect(sub.secret).toMatch(/^whsec_/);
    const read = (await ok("GET", `/webhook/${sub._id}`, { token: t.owner.token })).data;
    expect(read.secret).toBeUndefined();
    await ok("PUT", `/table/row/${rowId}/cell/${b.price}`, { token: t.editor.token, body: { data: 5 } });
    // The write's own entry goes at once (the nudge after the write); the formula cell it recomputed follows.
    const entries = await receivedEntries(key, sub.secret, 2);
    expect(entries.map((e: any) => [e.kind, e.recordId, e.changes])).toEqual([
      ["row.updated", rowId, { [b.price]: { before: 2, after: 5 } }],
      ["row.updated", rowId, { [b.total]: { before: 6, after: 15, derived: true } }],
    ]);
    expect(entries[0].actor).toMatchObject({ type: "user", userId: t.editor.id });
    const reqs = await received(key, sub.secret);
    for (const r of reqs) {
      expect(r.body.subscriptionId).toBe(sub._id);
      expect(r.body.cursor).toBe(r.body.entries.at(-1).cursor);
    }
  });

  it("a write is delivered at once, without waiting for the minute's tick", async () => {
    const key = hookKey("nudge");
    const sub = await subscribe(t, key, { scope: { tableId: b.tableId }, events: ["row.created"] });
    const row = (await ok("POST", `/table/${b.tableId}/row`, { token: t.owner.token, body: { cells: {} } })).data.row;
    const [req] = await received(key, sub.secret, 1);
    expect(req!.body.entries.map((e: any) => [e.kind, e.recordId])).toEqual([["row.created", row._id]]);
  });

  it("refuses URLs the automations refuse (§14): not https, private, loopback or special-purpose addresses (422)", async () => {
    for (const url of [
      "http://example.com/hook",
      "https://10.0.0.1/hook",
      "https://127.0.0.1/hook",
      "https://[::ffff:127.0.0.1]/hook",
      "https://[64:ff9b::a00:1]/hook",
      "https://localhost/hook",
      "https://169.254.169.254/latest",
      "not a url",
    ]) {
      const res = await call("POST", "/webhook", {
        token: t.owner.token,
        body: { scope: { projectId: t.projectId }, events: ["row.*"], url },
      });
      expectError(res, 422, "UnprocessableEntityError");
    }
  });

  it("needs write access to the scope: a viewer is 403, an outsider and a missing scope 404", async () => {
    const body = (scope: unknown) => ({ scope, events: ["row.*"], url: hookUrl(hookKey("access")) });
    expectError(
      await call("POST", "/webhook", { token: t.viewer.token, body: body({ projectId: t.projectId }) }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", "/webhook", { token: t.viewer.token, body: body({ tableId: b.tableId }) }),
      403,
      "ForbiddenError",
    );
    for (const scope of [{ projectId: t.projectId }, { tableId: b.tableId }])
      expectError(await call("POST", "/webhook", { token: t.outsider.token, body: body(scope) }), 404, "NotFoundError");
    expectError(
      await call("POST", "/webhook", { token: t.owner.token, body: body({ projectId: "nope" }) }),
      404,
      "NotFoundError",
    );
    const editor = await ok("POST", "/webhook", { token: t.editor.token, body: body({ tableId: b.tableId }) }, 201);
    expect(editor.data.ownerId).toBe(t.editor.id);
  });

  it("validates the body: one scope, kind patterns, known members (400)", async () => {
    const url = hookUrl(hookKey("validation"));
    for (const body of [
      { scope: {}, events: ["row.*"], url },
      { scope: { projectId: t.projectId, tableId: b.tableId }, events: ["row.*"], url },
      { scope: { projectId: t.projectId }, events: [], url },
      { scope: { projectId: t.projectId }, events: ["ROW"], url },
      { scope: { projectId: t.projectId }, events: ["row.*"] },
      { scope: { projectId: t.projectId }, events: ["row.*"], url, extra: 1 },
    ])
      expectError(await call("POST", "/webhook", { token: t.owner.token, body }), 400, "ValidationError");
  });

  it("an Idempotency-Key replays the first answer, secret included, and creates one subscription", async () => {
    const headers = { "idempotency-key": hookKey("idem") };
    const body = { scope: { projectId: t.projectId }, events: ["row.*"], url: hookUrl(hookKey("idem")) };
    const first = await call("POST", "/webhook", { token: t.owner.token, body, headers });
    const again = await call("POST", "/webhook", { token: t.owner.token, body, headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data).toEqual(first.body.data);
    expect(Number(first.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
  });

  it("is audited: webhook.created with the creator, their token and address, never the secret; a refused one is not", async () => {
    const key = hookKey("audit");
    const res = await call("POST", "/webhook", {
      token: t.editor.token,
      headers: { "cf-connecting-ip": "2001:db8::31" },
      body: { scope: { tableId: b.tableId }, events: ["row.*"], url: hookUrl(key), description: "Audited" },
    });
    expect(res.status).toBe(201);
    const sub = res.body.data;
    const entries = await auditOf(t, "webhook.created", sub._id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      organizationId: t.organizationId,
      workspaceId: t.workspaceId,
      projectId: t.projectId,
      actor: { type: "user", userId: t.editor.id, tokenId: await tokenIdOf(t.editor.token) },
      clientAddress: "2001:db8::31",
      changes: {
        scope: { before: null, after: { tableId: b.tableId } },
        events: { before: null, after: ["row.*"] },
        url: { before: null, after: hookUrl(key) },
        description: { before: null, after: "Audited" },
        status: { before: null, after: "active" },
      },
    });
    expect(JSON.stringify(entries)).not.toContain(sub.secret.slice(6));
    // The family filter finds it; whoever is not an owner or admin of the organization reads no audit log.
    expect((await auditOf(t, "webhook.*", sub._id)).map((e) => e.kind)).toEqual(["webhook.created"]);
    expectError(
      await call("GET", `/organization/${t.organizationId}/audit`, { token: t.editor.token }),
      404,
      "NotFoundError",
    );
    const refused = await call("POST", "/webhook", {
      token: t.viewer.token,
      body: { scope: { tableId: b.tableId }, events: ["row.*"], url: hookUrl(key) },
    });
    expect(refused.status).toBe(403);
    const all = await ok("GET", `/organization/${t.organizationId}/audit`, {
      token: t.owner.token,
      query: { kind: "webhook.created", actor: t.viewer.id },
    });
    expect(all.data).toEqual([]);
  });
});
