import { env } from "cloudflare:test";
import { everyShardD1, shardD1 } from "../../support/shards";
import { shardBindingOfId } from "../../../src/tenancy/kernel/ids";
import { shardBindings } from "../../../src/tenancy/kernel/map";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { callScheduled } from "../../support/automations";
import { claimAndEnqueue } from "../../../src/services/automations/scheduler";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

async function scheduleRuns(automationId: string): Promise<any[]> {
  const res = await shardD1(automationId)
    .prepare(`SELECT "trigger" FROM automation_runs WHERE automation_id = ?1 ORDER BY id`)
    .bind(automationId)
    .all<{ trigger: string }>();
  return res.results.map((r) => JSON.parse(r.trigger));
}

async function nextRunAt(id: string): Promise<number | null> {
  return (await ok("GET", `/automation/${id}`, { token: t.owner.token })).data.nextRunAt;
}

/** Last Sunday of March of `year` (EU summer time starts at 01:00 UTC that day). */
function lastSundayOfMarch(year: number): number {
  const d = new Date(Date.UTC(year, 2, 31));
  return 31 - d.getUTCDay();
}

describe("schedules", () => {
  it("02:30 Europe/Berlin across the spring change: fires once a day, at 03:00 on the day 02:30 does not exist", async () => {
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "Nightly",
          triggers: [{ cron: "30 2 * * *", timezone: "Europe/Berlin" }],
          actions: [],
        },
      })
    ).data;
    const year = new Date().getUTCFullYear() + 1;
    const sunday = lastSundayOfMarch(year);
    const at = (day: number, hh: number, mm: number) => Date.UTC(year, 2, day, hh, mm);
    // Far-future ticks: the first claims the pending near-term instant and moves nextRunAt to the day before the change.
    await callScheduled(at(sunday - 2, 12, 0));
    expect(await nextRunAt(a._id)).toBe(at(sunday - 1, 1, 30)); // 02:30 CET = 01:30 UTC
    await callScheduled(at(sunday - 1, 1, 30));
    expect(await nextRunAt(a._id)).toBe(at(sunday, 1, 0)); // 02:30 does not exist: 03:00 CEST = 01:00 UTC
    await callScheduled(at(sunday, 0, 59)); // not yet due: nothing claimed
    await callScheduled(at(sunday, 1, 0));
    expect(await nextRunAt(a._id)).toBe(at(sunday + 1, 0, 30)); // 02:30 CEST = 00:30 UTC
    await callScheduled(at(sunday, 1, 0)); // the same minute again: already claimed
    const fired = (await scheduleRuns(a._id)).map((tr) => tr.scheduledFor);
    expect(fired.slice(1)).toEqual([at(sunday - 1, 1, 30), at(sunday, 1, 0)]);
    expect(fired).toHaveLength(3);
  });

  it("two overlapping scheduled invocations claim a due automation once", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await ok("POST", "/automation", {
            token: t.owner.token,
            body: { projectId: t.projectId, name: `Overlap ${i}`, triggers: [{ cron: "* * * * *" }] },
          })
        ).data._id,
      );
    }
    const tick = Date.now() + 10 * 60_000;
    const [r1, r2, r3] = await Promise.all([
      claimAndEnqueue(env, tick),
      claimAndEnqueue(env, tick),
      claimAndEnqueue(env, tick + 1),
    ]);
    expect(r1.d1RoundTrips).toBeLessThanOrEqual(2);
    for (const id of ids) expect(await scheduleRuns(id)).toHaveLength(1);
    expect(r1.claimed + r2.claimed + r3.claimed).toBeGreaterThanOrEqual(5);
    for (const id of ids) expect(await nextRunAt(id)).toBe(Math.floor(tick / 60_000) * 60_000 + 60_000);
  });

  it("runAt fires once; a disabled schedule is not due and is not replayed when enabled again", async () => {
    const soon = Date.now() + 5_000;
    const once = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Once", triggers: [{ runAt: soon }] },
      })
    ).data;
    expect(once.nextRunAt).toBe(soon);
    await callScheduled(soon + 60_000);
    expect(await nextRunAt(once._id)).toBeNull();
    await callScheduled(soon + 120_000);
    expect(await scheduleRuns(once._id)).toEqual([{ type: "schedule", scheduledFor: soon }]);

    const off = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Off", enabled: false, triggers: [{ cron: "0 * * * *" }] },
      })
    ).data;
    expect(off.nextRunAt).toBeNull();
    await callScheduled(Date.now() + 3 * 3_600_000);
    expect(await scheduleRuns(off._id)).toHaveLength(0);
    const on = (await ok("PATCH", `/automation/${off._id}`, { token: t.owner.token, body: { enabled: true } })).data;
    expect(on.nextRunAt).toBeGreaterThan(Date.now());
    expect(on.nextRunAt).toBeLessThanOrEqual(Date.now() + 3_600_000);
  });

  it("claims 2 000 due automations in two D1 round trips", async () => {
    const now = Date.now();
    // In the project's shard database, one of those the claim visits (each at once); found again by their prefix.
    const d1 = shardD1(t.projectId);
    await d1
      .prepare(
        `INSERT INTO automations (id, public_id, project_id, workspace_id, owner_id, created_by, name, scope, triggers, actions, "references", behavior, notify, enabled, webhook_secret, next_run_at, created_at, updated_at)
       SELECT 'bulk-' || ?5 || '-' || value, 'p' || value, ?1, ?2, ?3, ?3, 'Bulk', '{"projectIds":[]}', '[{"cron":"0 0 1 1 *","timezone":"UTC"}]', '[]', '[]',
         '{"maxDurationMs":30000,"operationBudget":1000,"maxAffectedRows":1000,"externalWriteBudget":10,"allowDocumentWrites":false}', '{"inApp":false,"email":false}', 1, 'whsec_x', ?4, ?4, ?4
       FROM json_each(?6)`,
      )
      .bind(
        t.projectId,
        t.workspaceId,
        t.owner.id,
        now - 1000,
        String(now),
        JSON.stringify(Array.from({ length: 2000 }, (_, i) => i)),
      )
      .run();
    const result = await claimAndEnqueue(env, now + 20 * 60_000);
    expect(result.claimed).toBeGreaterThanOrEqual(2000);
    expect(result.d1RoundTrips).toBe(2);
    const queued = await d1
      .prepare(`SELECT COUNT(*) AS n FROM automation_runs WHERE automation_id LIKE ?1`)
      .bind(`bulk-${now}-%`)
      .first<{ n: number }>();
    expect(queued!.n).toBe(2000);
    // Disable them again so the queue consumer of this test run does not linger on them.
    await d1.prepare(`UPDATE automations SET enabled = 0 WHERE id LIKE ?1`).bind(`bulk-${now}-%`).run();
  });
});

describe("the scheduled handler repairs users' copies in the shards (docs/scaling.md)", () => {
  const copyIn = (d1: D1Database, userId: string) =>
    d1
      .prepare(`SELECT id, email, name FROM users WHERE id = ?1`)
      .bind(userId)
      .first<{ id: string; email: string; name: string }>();

  it("a registration whose shard half failed (a shard lacks the user's copy) is repaired by the next tick", async () => {
    const u = await registerUser("Half registered");
    // A shard other than the home of the user's organization: there no row refers to the user yet.
    const binding = shardBindings().find((b) => b !== shardBindingOfId(u.organizationId))!;
    const shard = env[binding]!;
    await shard.prepare(`DELETE FROM users WHERE id = ?1`).bind(u.id).run();
    expect(await copyIn(shard, u.id)).toBeNull();
    await callScheduled(Date.now());
    expect(await copyIn(shard, u.id)).toEqual({ id: u.id, email: u.email, name: "Half registered" });
    for (const d1 of everyShardD1()) expect(await copyIn(d1, u.id)).toMatchObject({ id: u.id });
  });

  it("a repair that fails does not stop the Cron claim", async () => {
    const a = (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Despite repair", triggers: [{ cron: "* * * * *" }], actions: [] },
      })
    ).data;
    const due = await nextRunAt(a._id);
    // A directory whose every statement fails: the repair (which reads it) fails; the claim visits the shards only.
    const broken = new Proxy(env.DB, {
      get(target, prop) {
        if (prop === "prepare" || prop === "batch")
          return () => {
            throw new Error("directory unavailable");
          };
        const value = Reflect.get(target, prop, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await callScheduled(due!, { ...env, DB: broken });
    expect(await scheduleRuns(a._id)).toEqual([{ type: "schedule", scheduledFor: due }]);
  });
});
