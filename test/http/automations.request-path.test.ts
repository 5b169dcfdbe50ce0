/** Conditional requests on automations (API.md §17): strong ETag and 304 on GET, If-Match on PATCH (E2) and DELETE. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const createAutomation = async () =>
  (await ok("POST", "/automation", { token: t.owner.token, body: { projectId: t.projectId, name: "Conditional", actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }] } })).data;

describe("automation ETags", () => {
  it("GET carries a strong ETag and answers 304 on If-None-Match; the ETag changes with the record", async () => {
    const a = await createAutomation();
    const first = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } })).status).toBe(304);
    await ok("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { name: "Renamed" } });
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } })).status).toBe(200);
  });

  it("PATCH with a stale If-Match is 412 and changes nothing; the current one succeeds and answers the new ETag", async () => {
    const a = await createAutomation();
    const etag = (await call("GET", `/automation/${a._id}`, { token: t.owner.token })).headers.get("etag")!;
    const stale = await call("PATCH", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-match": '"0000"' }, body: { name: "No" } });
    expect(stale.status).toBe(412);
    expect(stale.body.error).toBe("PreconditionFailedError");
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.name).toBe("Conditional");
    const fresh = await call("PATCH", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-match": etag }, body: { name: "Yes" } });
    expect(fresh.status).toBe(200);
    const after = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
    expect(fresh.headers.get("etag")).toBe(after.headers.get("etag"));
  });

  it("DELETE with a stale If-Match is 412 and the automation stays", async () => {
    const a = await createAutomation();
    const res = await call("DELETE", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-match": '"0000"' } });
    expect(res.status).toBe(412);
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token })).status).toBe(200);
    const etag = (await call("GET", `/automation/${a._id}`, { token: t.owner.token })).headers.get("etag")!;
    expect((await call("DELETE", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-match": etag } })).status).toBe(200);
    expect((await call("GET", `/automation/${a._id}`, { token: t.owner.token })).status).toBe(404);
  });
});
