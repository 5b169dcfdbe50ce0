/**
 * Automation records under concurrency and at scale (docs/api-guide.md): two PATCHes of different members both
 * take effect; the project listing pages past 1,000 with a cursor; webhook URLs are shown in full only to those
 * who may change the automation.
 */
import { shardD1 } from "../../support/shards";
import { newIdBeside } from "../../../src/tenancy/kernel/ids";
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type Tenant,
} from "../../support/harness";
import { hookUrl } from "../../support/automations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

describe("no lost updates", () => {
  it("concurrent PATCHes of description and actions from two tokens: both changes stay, 20 times out of 20", async () => {
    const admin = await registerUser("Admin");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Race", actions: [] },
      })
    ).data;
    for (let i = 0; i < 20; i++) {
      const [d, x] = await Promise.all([
        call("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { description: `d${i}` } }),
        call("PATCH", `/automation/${a._id}`, {
          token: admin.token,
          body: { actions: [{ id: `n${i}`, spec: { kind: "notify", title: `t${i}` } }] },
        }),
      ]);
      expect([d.status, x.status]).toEqual([200, 200]);
      const now = (await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data;
      expect(now.description).toBe(`d${i}`);
      expect(now.actions.map((y: any) => y.id)).toEqual([`n${i}`]);
    }
  });

  it("concurrent trigger changes leave the event-trigger index matching the stored triggers", async () => {
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Triggers", actions: [] },
      })
    ).data;
    const bodies = ["row.created", "row.updated", "row.deleted", "document.created"].map((event) => ({
      triggers: [{ event }],
    }));
    await Promise.all(bodies.map((body) => call("PATCH", `/automation/${a._id}`, { token: t.owner.token, body })));
    const stored = (await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.triggers.map(
      (x: any) => x.event,
    );
    const index = (
      await shardD1(a._id)
        .prepare(`SELECT event FROM automation_event_triggers WHERE automation_id = ?1 ORDER BY position`)
        .bind(a._id)
        .all<{ event: string }>()
    ).results.map((r) => r.event);
    expect(index).toEqual(stored);
  });
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
