/** Conditional requests on automations (docs/api-guide.md › HTTP semantics: retries, caching, replicas): strong ETag and 304 on GET, If-Match on PATCH (E2) and DELETE. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const createAutomation = async () =>
  (
    await ok("POST", "/automation", {
      token: t.owner.token,
      body: {
        projectId: t.projectId,
        name: "Conditional",
        actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
      },
    })
  ).data;

describe("automation ETags", () => {
  it("GET carries a strong ETag and answers 304 on If-None-Match; the ETag changes with the record", async () => {
    const a = await createAutomation();
    const first = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(
      (await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } })).status,
    ).toBe(304);
    await ok("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { name: "Renamed" } });
    expect(
      (await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } })).status,
    ).toBe(200);
  });

  it("PATCH with a stale If-Match is 412 and changes nothing; the current one succeeds and answers the new ETag", async () => {
    const a = await createAutomation();
    const etag = (await call("GET", `/automation/${a._id}`, { token: t.owner.token })).headers.get("etag")!;
    const stale = await call("PATCH", `/automation/${a._id}`, {
      token: t.owner.token,
      headers: { "if-match": '"0000"' },
      body: { name: "No" },
    });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toBe("PreconditionFailedError");
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.name).toBe("Conditional");
    const fresh = await call("PATCH", `/automation/${a._id}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Yes" },
    });
    expect(fresh.status).toBe(200);
    const after = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
    expect(fresh.headers.get("etag")).toBe(after.headers.get("etag"));
  });

  it("DELETE with a stale If-Match is 412 and the automation stays", async () => {
    const a = await createAutomation();
    const res = await call("DELETE", `/automation/${a._id}`, {
      token: t.owner.token,
      headers: { "if-match": '"0000"' },
    });
    expect(res.status).toBe(412);
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token })).status).toBe(200);
    const etag = (await call("GET", `/automation/${a._id}`, { token: t.owner.token })).headers.get("etag")!;
    expect(
      (await call("DELETE", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-match": etag } })).status,
    ).toBe(200);
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token })).status).toBe(404);
  });
});

describe("automation writes fold authentication into their first read", () => {
  it("create, run, retry and rotate cost 2 D1 round trips (3 with an Idempotency-Key), and still refuse what they refused", async () => {
    const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
    await ok("GET", "/me", { token: t.owner.token });
    const body = {
      projectId: t.projectId,
      name: "Two trips",
      actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
    };
    const created = await call("POST", "/automation", { token: t.owner.token, body });
    expect(created.status).toBe(200);
    expect(trips(created)).toBe(2);
    const keyed = await call("POST", "/automation", {
      token: t.owner.token,
      body,
      headers: { "idempotency-key": `auto-${Date.now()}` },
    });
    expect(keyed.status).toBe(200);
    expect(trips(keyed)).toBe(3);
    const id = created.body.data._id;
    const run = await call("POST", `/automation/${id}/run`, { token: t.owner.token });
    expect(run.status).toBe(200);
    expect(trips(run)).toBe(2);
    const retried = await call("POST", `/automation/run/${run.body.data._id}/retry`, { token: t.owner.token });
    expect(retried.status).toBe(200);
    expect(retried.body.data.retryOf).toBe(run.body.data._id);
    expect(trips(retried)).toBe(2);
    const rotated = await call("POST", `/automation/${id}/webhook-secret/rotate`, { token: t.owner.token });
    expect(rotated.status).toBe(200);
    expect(trips(rotated)).toBe(2);
    // A trigger watching a project the caller cannot read is as absent as any other. Another organization's project
    // is asked in its own database once the first read holds (docs/scaling.md "Triggers across organizations").
    const other = await seedTenant();
    const hidden = await call("POST", "/automation", {
      token: t.owner.token,
      body: { ...body, triggers: [{ event: "row.created", projectId: other.projectId }] },
    });
    expect(hidden.status).toBe(404);
    expect(trips(hidden)).toBe(2);
    // Existence before meaning (docs/api-guide.md › Conventions): the unreadable project answers, not the bad schedule beside it.
    const both = await call("POST", "/automation", {
      token: t.owner.token,
      body: { ...body, triggers: [{ event: "row.created", projectId: other.projectId }, { cron: "not a cron" }] },
    });
    expect(both.status).toBe(404);
    // An outsider learns nothing, and a bad token is 401 before anything.
    expect((await call("POST", `/automation/${id}/run`, { token: other.owner.token })).status).toBe(404);
    expect((await call("POST", `/automation/${id}/webhook-secret/rotate`, { token: other.owner.token })).status).toBe(
      404,
    );
    expect((await call("POST", "/automation", { token: other.owner.token, body })).status).toBe(404);
    expect((await call("POST", `/automation/${id}/run`, { token: "nope" })).status).toBe(401);
  });
});
