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

  it("answers a strong ETag that If-None-Match turns into 304, whenever it is read; a change gives a new one", async () => {
    const sub = await subscribe(t, hookKey("get-etag"));
    const path = `/webhook/${sub._id}`;
    const first = await call("GET", path, { token: t.owner.token });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    // The cursor carries the time it was read; the subscription did not change, so neither does its tag.
    await new Promise((r) => setTimeout(r, 5));
    const again = await call("GET", path, { token: t.owner.token, headers: { "if-none-match": etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
    expect(again.headers.get("x-d1-round-trips")).toBe("1");
    // A reader sees the URL's origin only: another representation, another tag.
    const viewer = await call("GET", path, { token: t.viewer.token, headers: { "if-none-match": etag } });
    expect(viewer.status).toBe(200);
    expect(viewer.headers.get("etag")).not.toBe(etag);
    await ok("PATCH", path, { token: t.owner.token, body: { description: "Changed" } });
    const changed = await call("GET", path, { token: t.owner.token, headers: { "if-none-match": etag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(etag);
  });

  it("an outsider and an unknown id get 404", async () => {
    const sub = await subscribe(t, hookKey("get-404"));
    expectError(await call("GET", `/webhook/${sub._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", `/webhook/nope`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
