/** runAutomation: POST /automation/{id}/run (src/routes/automations/run.ts) — its happy path, errors and request-path checks. */
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
  it("manual runs: runFromButton lets editors run, viewers never; retry carries retryOf; notify.inApp writes notifications", async () => {
    const a = await automation(t.owner.token, {
      notify: { inApp: true },
      actions: [{ spec: { kind: "notify", title: "Ping", body: "pong" } }],
    });
    expectError(await call("POST", `/automation/${a._id}/run`, { token: t.editor.token }), 403, "ForbiddenError");
    await ok("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { runFromButton: true } });
    const queued = (await ok("POST", `/automation/${a._id}/run`, { token: t.editor.token })).data;
    expect(queued).toMatchObject({ status: "queued", trigger: { type: "manual", userId: t.editor.id } });
    expectError(await call("POST", `/automation/${a._id}/run`, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await call("POST", `/automation/${a._id}/run`, { token: t.outsider.token }), 404, "NotFoundError");
    const [first] = await finishedRuns(t.owner.token, a._id);
    const retry = (await ok("POST", `/automation/run/${first._id}/retry`, { token: t.owner.token })).data;
    expect(retry.retryOf).toBe(first._id);
    const both = await finishedRuns(t.owner.token, a._id, 2);
    expect(both[0]._id).toBe(retry._id);
    expectError(await call("GET", `/automation/run/${first._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    const notes = (await ok("GET", "/notification/all", { token: t.owner.token })).data;
    expect(notes.filter((n: any) => n.kind === "automation.notify" && n.data.automationId === a._id)).toHaveLength(2);
    expect(
      notes.filter((n: any) => n.kind === "automation.run.succeeded" && n.data.automationId === a._id),
    ).toHaveLength(2);
  });
});
