/** listAutomations: GET /automation/all/{projectId} (src/routes/automations/listByProject.ts) — its happy path, errors and request-path checks. */
/**
 * Automation records under concurrency and at scale (docs/api-guide.md): two PATCHes of different members both
 * take effect; the project listing pages past 1,000 with a cursor; webhook URLs are shown in full only to those
 * who may change the automation.
 */
import { shardD1 } from "../../support/shards";
import { newIdBeside } from "../../../src/tenancy/kernel/ids";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, seedTenant } from "../../support/harness";

beforeAll(async () => {
  await seedTenant();
});

describe("listing", () => {
  it("pages a project's automations past 1,000 with a cursor; none is invisible", async () => {
    const owner = await registerUser("Many");
    const project = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "Many" } })
    ).data._id;
    const first = (
      await ok("POST", "/automation", {
        token: owner.token,
        body: { projectId: project, name: "Template", actions: [] },
      })
    ).data;
    const ids = Array.from({ length: 1004 }, () => newIdBeside(project));
    for (let i = 0; i < ids.length; i += 250) {
      await shardD1(project)
        .prepare(
          `INSERT INTO automations (id, public_id, project_id, workspace_id, owner_id, created_by, name, description, prompt, prompt_doc, icon, scope, triggers, actions, conditions, "references", on_missing_reference, behavior, notify, enabled, run_from_button, webhook_secret, consecutive_failures, version, is_deleted, created_at, updated_at)
         SELECT j.value, public_id, project_id, workspace_id, owner_id, created_by, 'Copy', description, prompt, prompt_doc, icon, scope, triggers, actions, conditions, "references", on_missing_reference, behavior, notify, enabled, run_from_button, webhook_secret, 0, 0, 0, created_at, updated_at
         FROM automations, json_each(?1) j WHERE automations.id = ?2`,
        )
        .bind(JSON.stringify(ids.slice(i, i + 250)), first._id)
        .run();
    }
    const p1 = await ok("GET", `/automation/all/${project}`, { token: owner.token });
    expect(p1.data).toHaveLength(1000);
    expect(p1.nextCursor).toEqual(expect.any(String));
    const p2 = await ok("GET", `/automation/all/${project}`, { token: owner.token, query: { cursor: p1.nextCursor } });
    expect(p2.data).toHaveLength(5);
    expect(p2.nextCursor).toBeNull();
    const seen = [...p1.data, ...p2.data].map((a: any) => a._id);
    expect(new Set(seen).size).toBe(1005);
    expect(seen).toEqual([...seen].sort());
    const small = await ok("GET", `/automation/all/${project}`, { token: owner.token, query: { limit: 2 } });
    expect(small.data).toHaveLength(2);
    expectError(
      await call("GET", `/automation/all/${project}`, { token: owner.token, query: { cursor: "!!" } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("GET", `/automation/all/${project}`, { token: owner.token, query: { limit: 1001 } }),
      400,
      "ValidationError",
    );
  });
});
