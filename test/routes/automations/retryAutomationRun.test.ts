/** retryAutomationRun: POST /automation/run/{runId}/retry (src/routes/automations/retryRun.ts) — its happy path, errors and request-path checks. */
/**
 * Cascades are bounded as a whole (docs/api-guide.md, automations): everything one cause sets off shares one budget
 * of writes and deliveries, every start counts depth the same, retries stay in their cascade, disabled automations
 * never run, and a project runs a bounded number of automations a day. These tests count rows, runs and
 * deliveries per cause; none measures time.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { callQueue, finishedRuns } from "../../support/automations";
import { newIdBeside } from "../../../src/tenancy/kernel/ids";
import { shardD1 } from "../../support/shards";

let owner: RegisteredUser;
let projectId: string;

beforeAll(async () => {
  owner = await registerUser("Cascade owner");
  projectId = (
    await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "Cascades" } })
  ).data._id;
});

async function automation(body: Record<string, unknown>, token = owner.token, project = projectId) {
  return (await ok("POST", "/automation", { token, body: { projectId: project, name: "A", ...body } })).data;
}

describe("cascade budget", () => {
  it("a disabled automation is neither run nor retried (409), and a run queued before it was disabled is skipped", async () => {
    const auto = await automation({ actions: [{ spec: { kind: "notify", title: "x" } }] });
    const queued = (await ok("POST", `/automation/${auto._id}/run`, { token: owner.token })).data;
    await finishedRuns(owner.token, auto._id);
    await ok("PATCH", `/automation/${auto._id}`, { token: owner.token, body: { enabled: false } });
    expectError(await call("POST", `/automation/${auto._id}/run`, { token: owner.token }), 409, "ConflictError");
    expectError(
      await call("POST", `/automation/run/${queued._id}/retry`, { token: owner.token }),
      409,
      "ConflictError",
    );
    // A run already queued (a retry, a manual run) when the automation was disabled does not act.
    const lateId = newIdBeside(auto._id);
    await shardD1(auto._id)
      .prepare(
        `INSERT INTO automation_runs (id, automation_id, project_id, "trigger", depth, cascade_id, status, retry_of, operations, affected_rows, external_writes, actions, delivery_ids, created_at, updated_at)
       VALUES (?1, ?2, ?3, '{"type":"manual"}', 1, ?1, 'queued', ?4, 0, 0, 0, '[]', '[]', 1, 1)`,
      )
      .bind(lateId, auto._id, projectId, queued._id)
      .run();
    await callQueue("automation-runs", [{ kind: "run", runId: lateId }]);
    const after = await shardD1(lateId)
      .prepare(`SELECT status, error FROM automation_runs WHERE id = ?1`)
      .bind(lateId)
      .first<any>();
    expect(after.status).toBe("skipped");
    expect(JSON.parse(after.error)).toMatchObject({ code: "Disabled" });
    // Notices are the directory's.
    const notices = await env.DB.prepare(
      `SELECT count(*) AS n FROM notifications WHERE kind = 'automation.notify' AND json_extract(data, '$.automationId') = ?1`,
    )
      .bind(auto._id)
      .first<{ n: number }>();
    expect(notices!.n).toBe(1);
  });
});
