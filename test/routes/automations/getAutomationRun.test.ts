/** getAutomationRun: GET /automation/run/{runId} (src/routes/automations/getRun.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { finishedRuns, hookUrl } from "../../support/automations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

async function automation(token: string, body: Record<string, unknown>) {
  return (await ok("POST", "/automation", { token, body: { projectId: t.projectId, name: "A", ...body } })).data;
}

describe("budgets, failures and rights", () => {
  it("runs, deliveries and notifications carry createdAt and updatedAt like every record (docs/api-guide.md › Conventions)", async () => {
    const a = await automation(t.owner.token, {
      notify: { inApp: true },
      actions: [{ id: "hook", spec: { kind: "webhook", url: hookUrl(`stamps-${Date.now()}`) } }],
    });
    const queued = (await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token })).data;
    expect(queued.updatedAt).toBe(queued.createdAt);
    const [run] = await finishedRuns(t.owner.token, a._id);
    expect(typeof run.updatedAt).toBe("number");
    expect(run.updatedAt).toBeGreaterThanOrEqual(run.finishedAt);
    expect((await ok("GET", `/automation/run/${run._id}`, { token: t.owner.token })).data.updatedAt).toBe(
      run.updatedAt,
    );
    const listed = (await ok("GET", `/automation/${a._id}/deliveries`, { token: t.owner.token })).data;
    expect(listed).toHaveLength(1);
    expect(typeof listed[0].createdAt).toBe("number");
    expect(listed[0].updatedAt).toBeGreaterThanOrEqual(listed[0].createdAt);
    const note = (await ok("GET", "/notification/all", { token: t.owner.token })).data.find(
      (n: any) => n.data?.runId === run._id,
    );
    expect(note.updatedAt).toBe(note.createdAt);
    const read = (await ok("POST", `/notification/${note._id}/read`, { token: t.owner.token })).data;
    expect(read.updatedAt).toBe(read.readAt);
  });
});
