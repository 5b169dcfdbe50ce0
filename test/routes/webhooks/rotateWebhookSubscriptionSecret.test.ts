/** POST /webhook/{id}/rotate-secret (docs/api-guide.md › Webhook subscriptions). */
import { Webhook } from "standardwebhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { receiverLog } from "../../support/automations";
import { auditOf, hookKey, pump, received, subscribe, tokenIdOf } from "../../support/webhooks";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("POST /webhook/{id}/rotate-secret", () => {
  it("answers a new secret once; deliveries are signed with it, not the old one", async () => {
    const table = await makeTable(t.owner.token, t.projectId, "Rotated");
    const key = hookKey("rotate");
    const sub = await subscribe(t, key, { scope: { tableId: table.tableId } });
    const { secret } = (await ok("POST", `/webhook/${sub._id}/rotate-secret`, { token: t.owner.token })).data;
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(sub.secret);
    await addRow(t.owner.token, table.tableId, { [table.nameColumnId]: "signed" });
    await pump();
    await received(key, secret, 1);
    const [req] = await receiverLog(key);
    expect(() => new Webhook(sub.secret).verify(req!.body, req!.headers)).toThrow();
    // Audited, without the secret.
    const entries = await auditOf(t, "webhook.secret_rotated", sub._id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { type: "user", userId: t.owner.id, tokenId: await tokenIdOf(t.owner.token) },
      clientAddress: expect.any(String),
    });
    expect(JSON.stringify(entries)).not.toContain(secret.slice(6));
  });

  it("a viewer is 403, an outsider 404", async () => {
    const sub = await subscribe(t, hookKey("rotate-errors"));
    const path = `/webhook/${sub._id}/rotate-secret`;
    expectError(await call("POST", path, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("POST", path, { token: t.outsider.token }), 404, "NotFoundError");
    expect(await auditOf(t, "webhook.secret_rotated", sub._id)).toEqual([]);
  });
});
