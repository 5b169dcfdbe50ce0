/** listAutomationRuns: GET /automation/{id}/runs (src/routes/automations/listRuns.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { finishedRuns } from "../../support/automations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

async function automation(token: string, body: Record<string, unknown>) {
  return (await ok("POST", "/automation", { token, body: { projectId: t.projectId, name: "A", ...body } })).data;
}

describe("budgets, failures and rights", () => {
  it("pages runs newest first and filters by status", async () => {
    const a = await automation(t.owner.token, { actions: [] });
    for (let i = 0; i < 5; i++) await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
    await finishedRuns(t.owner.token, a._id, 5);
    const p1 = await ok("GET", `/automation/${a._id}/runs`, { token: t.owner.token, query: { limit: 2 } });
    const p2 = await ok("GET", `/automation/${a._id}/runs`, {
      token: t.owner.token,
      query: { limit: 2, cursor: p1.nextCursor },
    });
    const p3 = await ok("GET", `/automation/${a._id}/runs`, {
      token: t.owner.token,
      query: { limit: 2, cursor: p2.nextCursor },
    });
    const ids = [...p1.data, ...p2.data, ...p3.data].map((r: any) => r._id);
    expect(ids).toHaveLength(5);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(p3.nextCursor).toBeNull();
    expect(
      (await ok("GET", `/automation/${a._id}/runs`, { token: t.owner.token, query: { status: "failed" } })).data,
    ).toEqual([]);
    expectError(
      await call("GET", `/automation/${a._id}/runs`, { token: t.owner.token, query: { limit: 101 } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("GET", `/automation/${a._id}/runs`, { token: t.owner.token, query: { cursor: "!!" } }),
      400,
      "ValidationError",
    );
  });
});
