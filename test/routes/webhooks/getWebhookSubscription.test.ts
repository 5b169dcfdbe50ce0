/** GET /webhook/{id} (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { hookUrl, receiverUrl } from "../../support/automations";
import { hookKey, subscribe } from "../../support/webhooks";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("GET /webhook/{id}", () => {
  it("the owner reads it whole, a workspace viewer with the URL's origin only, never the secret", async () => {
    const key = hookKey("get");
    const sub = await subscribe(t, key, { events: ["row.*", "document.created"], description: "Sync" });
    const owner = await call("GET", `/webhook/${sub._id}`, { token: t.owner.token });
    expect(owner.status).toBe(200);
    expect(owner.headers.get("x-d1-round-trips")).toBe("1");
    expect(owner.body.data).toMatchObject({
      _id: sub._id,
      scope: { projectId: t.projectId },
      events: ["row.*", "document.created"],
      columnIds: null,
      url: hookUrl(key),
      description: "Sync",
      status: "active",
      ownerId: t.owner.id,
      cursor: expect.any(String),
    });
    expect(owner.body.data.secret).toBeUndefined();
    const viewer = (await ok("GET", `/webhook/${sub._id}`, { token: t.viewer.token })).data;
    expect(viewer.url).toBe(receiverUrl());
  });

  it("an outsider and an unknown id get 404", async () => {
    const sub = await subscribe(t, hookKey("get-404"));
    expectError(await call("GET", `/webhook/${sub._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", `/webhook/nope`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
