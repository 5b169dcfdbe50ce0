/** rotateWebhookSecret: POST /automation/{id}/webhook-secret/rotate (src/routes/automations/rotateSecret.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
} from "../../support/harness";
import { makeTable } from "../../support/tableHarness";

let t: Tenant;
let admin: RegisteredUser;

beforeAll(async () => {
  t = await seedTenant();
  admin = await registerUser("Admin");
  await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
  await makeTable(t.owner.token, t.projectId);
});

describe("automation CRUD and E2", () => {
  it("rotates the secret, deletes, and a deleted automation is gone", async () => {
    const a = (await ok("POST", "/automation", { token: t.owner.token, body: { projectId: t.projectId, name: "Del" } }))
      .data;
    const rotated = await ok("POST", `/automation/${a._id}/webhook-secret/rotate`, { token: admin.token });
    expect(rotated.data.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.data.webhookSecret).not.toBe(a.webhookSecret);
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.webhookSecret).toBe(
      rotated.data.webhookSecret,
    );
    await ok("DELETE", `/automation/${a._id}`, { token: t.owner.token });
    expectError(await call("GET", `/automation/${a._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expect(
      (await ok("GET", `/automation/all/${t.projectId}`, { token: t.owner.token })).data.map((x: any) => x._id),
    ).not.toContain(a._id);
  });
});
