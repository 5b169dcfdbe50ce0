/** deleteAutomation: DELETE /automation/{id} (src/routes/automations/delete.ts) — its happy path, errors and request-path checks. */
/** Conditional requests on automations (docs/api-guide.md › HTTP semantics: retries, caching, replicas): strong ETag and 304 on GET, If-Match on PATCH (E2) and DELETE. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant } from "../../support/harness";
import { conditionalAutomation } from "../../support/automations";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const createAutomation = () => conditionalAutomation(t);

describe("automation ETags", () => {
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
