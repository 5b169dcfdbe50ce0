/**
 * Automations on the sharded layout (docs/scaling.md): an automation's runs, deliveries, cascade, project day and the
 * rows its actions write are in the shard database its id names and in no other; its notices are in the directory,
 * where GET /notification/all reads them; events and the Cron claim find automations in every shard database.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import {
  callScheduled,
  eventually,
  finishedRuns,
  hookUrl,
  runs as runsOf,
  sleep,
  webhookAction,
} from "../../support/automations";
import { CASCADE_WRITES } from "../../../src/services/automations/cascade";
import { everyShardD1, shardD1 } from "../../support/shards";
import { shardBindingOfId } from "../../../src/tenancy/kernel/ids";

interface Org {
  user: RegisteredUser;
  projectId: string;
}

/** Two users whose organizations are on different shard databases (placement is random: register until they are). */
async function twoOrgsOnTwoShards(): Promise<[Org, Org]> {
  const first = await registerUser("Shard A");
  let second = await registerUser("Shard B");
  for (let i = 0; i < 30 && shardBindingOfId(second.organizationId) === shardBindingOfId(first.organizationId); i++)
    second = await registerUser("Shard B");
  expect(shardBindingOfId(second.organizationId)).not.toBe(shardBindingOfId(first.organizationId));
  const project = async (u: RegisteredUser) =>
    (await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Sharded" } })).data
      ._id as string;
  return [
    { user: first, projectId: await project(first) },
    { user: second, projectId: await project(second) },
  ];
}

/** The databases (shards by index, or "DB") whose `table` holds a row with `column` = `value`. */
async function whereIs(table: string, column: string, value: string): Promise<string[]> {
  const found: string[] = [];
  const all: [string, D1Database][] = [
    ["DB", env.DB],
    ...everyShardD1().map((d1, k): [string, D1Database] => [`SHARD_${k}`, d1]),
  ];
  for (const [name, d1] of all) {
    // Each kind of database has only its own tables (docs/scaling.md "Migrations per kind of database").
    if (!(await d1.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?1").bind(table).first()))
      continue;
    const row = await d1
      .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?1`)
      .bind(value)
      .first<{ n: number }>();
    if (row!.n > 0) found.push(name);
  }
  return found;
}

let orgs: [Org, Org];

beforeAll(async () => {
  orgs = await twoOrgsOnTwoShards();
  // A writes in B's workspace too, so A's automations can write into each other's organizations.
  await addWorkspaceCollaborator(orgs[1].user, orgs[1].user.workspaceId, orgs[0].user, "editor");
});

describe("automations on shard databases", () => {
  it("each organization's event runs write runs, deliveries, cascades, project days and rows in its own shard only, and notices in the directory", async () => {
    const setups = await Promise.all(
      orgs.map(async ({ user, projectId }, i) => {
        const source = await makeTable(user.token, projectId, "Source");
        const target = await makeTable(user.token, projectId, "Target");
        const a = (
          await ok("POST", "/automation", {
            token: user.token,
            body: {
              projectId,
              name: `Sharded ${i}`,
              triggers: [{ event: "row.created", filter: { tableId: source.tableId } }],
              actions: [
                {
                  id: "copy",
                  spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: "copied" } },
                },
                { id: "tell", spec: { kind: "notify", title: `Sharded notice ${i}` } },
                webhookAction(hookUrl(`shards-${Date.now()}-${i}`)),
              ],
            },
          })
        ).data;
        return { user, projectId, source, target, a };
      }),
    );
    // Both writes at once: their events are looked up in two shard databases.
    await Promise.all(
      setups.map(({ user, source }) => addRow(user.token, source.tableId, { [source.nameColumnId]: "x" })),
    );
    for (const { user, projectId, target, a } of setups) {
      const [run] = await finishedRuns(user.token, a._id);
      expect(run).toMatchObject({ status: "succeeded", affectedRows: 1 });
      const home = shardBindingOfId(a._id)!;
      expect(home).toBe(shardBindingOfId(projectId));
      expect(await whereIs("automation_runs", "id", run._id)).toEqual([home]);
      expect(run.deliveryIds).toHaveLength(1);
      expect(await whereIs("automation_deliveries", "id", run.deliveryIds[0])).toEqual([home]);
      expect(await whereIs("automation_cascades", "project_id", projectId)).toEqual([home]);
      expect(await whereIs("automation_project_days", "project_id", projectId)).toEqual([home]);
      const copied = await shardD1(target.tableId)
        .prepare(`SELECT count(*) AS n FROM rows WHERE table_id = ?1`)
        .bind(target.tableId)
        .first<{ n: number }>();
      expect(copied!.n).toBe(1);
      expect(await whereIs("rows", "table_id", target.tableId)).toEqual([home]);
      expect(await whereIs("notifications", "user_id", user.id)).toEqual(["DB"]);
      const notes = (await ok("GET", "/notification/all", { token: user.token })).data;
      expect(notes.filter((n: any) => n.kind === "automation.notify" && n.data?.runId === run._id)).toHaveLength(1);
    }
  });

  it("the Cron claim finds due automations in every shard database in one tick", async () => {
    const made = await Promise.all(
      orgs.map(
        async ({ user, projectId }) =>
          (
            await ok("POST", "/automation", {
              token: user.token,
              body: { projectId, name: "Every minute", triggers: [{ cron: "* * * * *" }], actions: [] },
            })
          ).data,
      ),
    );
    const due = Math.max(...made.map((a) => a.nextRunAt as number));
    await callScheduled(due);
    for (const a of made) {
      const runs = await shardD1(a._id)
        .prepare(`SELECT "trigger" FROM automation_runs WHERE automation_id = ?1`)
        .bind(a._id)
        .all<{ trigger: string }>();
      expect(runs.results.map((r) => JSON.parse(r.trigger).type)).toEqual(["schedule"]);
      expect(await whereIs("automation_runs", "automation_id", a._id)).toEqual([shardBindingOfId(a._id)]);
    }
  });

  it(
    "a cascade that reaches an organization on another shard database spends its one budget there too",
    { timeout: 300_000 },
    async () => {
      const [a, b] = orgs;
      const ta = await makeTable(a.user.token, a.projectId, "Ping");
      const tb = await makeTable(a.user.token, b.projectId, "Pong");
      const k = 50;
      const writeInto = async (projectId: string, watched: string, target: string) =>
        (
          await ok("POST", "/automation", {
            token: a.user.token,
            body: {
              projectId,
              name: `Into ${target}`,
              triggers: [{ event: "row.created", filter: { tableId: watched } }],
              behavior: { maxDurationMs: 900_000 },
              actions: Array.from({ length: k }, (_, i) => ({
                id: `c${i}`,
                spec: { kind: "row.create", tableId: target },
              })),
            },
          })
        ).data;
      const ping = await writeInto(a.projectId, ta.tableId, tb.tableId);
      const pong = await writeInto(b.projectId, tb.tableId, ta.tableId);
      await addRow(a.user.token, ta.tableId);
      // Pong's runs come from ping's first run's writes; once some exist, pong settles, then whatever it caused.
      await eventually(async () => (await runCount(pong._id)) > 0, 60_000, "pong's first runs");
      await settled(pong._id);
      await settled(ping._id);
      const rowsIn = async (t: string) =>
        Number(
          (await shardD1(t)
            .prepare(`SELECT count(*) AS n FROM rows WHERE table_id = ?1`)
            .bind(t)
            .first<{ n: number }>())!.n,
        );
      const written = (await rowsIn(ta.tableId)) - 1 + (await rowsIn(tb.tableId));
      // One budget for the cause across both databases: ping's run writes 50 into B, whose 50 events can pay for 19
      // pong runs of 50 back into A, and then nothing is left for the ping runs those would cause. With a budget per
      // database (as before), each database spent its own 1,000: some 2,000 writes.
      expect(written).toBeLessThanOrEqual(CASCADE_WRITES);
      expect(written).toBeGreaterThan(CASCADE_WRITES - k);
      const pongRuns = await shardD1(pong._id)
        .prepare(`SELECT DISTINCT cascade_id AS c, count(*) AS n FROM automation_runs WHERE automation_id = ?1`)
        .bind(pong._id)
        .all<{ c: string; n: number }>();
      expect(pongRuns.results).toHaveLength(1);
      expect(pongRuns.results[0]!.n).toBe((CASCADE_WRITES - k) / k);
      const cascadeId = pongRuns.results[0]!.c;
      // The cascade's one row is at home, beside the run that began it; the runs it paid for in B are in B.
      const [first] = (
        await shardD1(ping._id)
          .prepare(`SELECT id, cascade_id FROM automation_runs WHERE automation_id = ?1 AND depth = 1`)
          .bind(ping._id)
          .all<{ id: string; cascade_id: string }>()
      ).results;
      expect(first!.cascade_id).toBe(cascadeId);
      expect(await whereIs("automation_cascades", "id", cascadeId)).toEqual([shardBindingOfId(a.projectId)]);
      expect(await whereIs("automation_runs", "automation_id", pong._id)).toEqual([shardBindingOfId(b.projectId)]);
      const home = await shardD1(a.projectId)
        .prepare(`SELECT writes, runs FROM automation_cascades WHERE id = ?1`)
        .bind(cascadeId)
        .first<{ writes: number; runs: number }>();
      expect(home).toEqual({ writes: written, runs: 1 + pongRuns.results[0]!.n });
      expect(
        await shardD1(pong._id)
          .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1 AND status <> 'succeeded'`)
          .bind(pong._id)
          .first("n"),
      ).toBe(0);
    },
  );

  it("a run away from its cascade's home charges its delivery, a redelivery and a retry there", async () => {
    const [a, b] = orgs;
    const t1 = await makeTable(a.user.token, a.projectId, "Relay from");
    const t2 = await makeTable(a.user.token, b.projectId, "Relay to");
    const key = `shards-away-${Date.now()}`;
    const relay = (
      await ok("POST", "/automation", {
        token: a.user.token,
        body: {
          projectId: a.projectId,
          name: "Relay",
          triggers: [{ event: "row.created", filter: { tableId: t1.tableId } }],
          actions: [{ id: "w", spec: { kind: "row.create", tableId: t2.tableId } }],
        },
      })
    ).data;
    const hook = (
      await ok("POST", "/automation", {
        token: a.user.token,
        body: {
          projectId: b.projectId,
          name: "Hook",
          triggers: [{ event: "row.created", filter: { tableId: t2.tableId } }],
          actions: [webhookAction(hookUrl(key, { statuses: "410,200,200" }))],
        },
      })
    ).data;
    await addRow(a.user.token, t1.tableId);
    const delivery = await eventually(async () => {
      const d = await shardD1(hook._id)
        .prepare(`SELECT id, run_id, status FROM automation_deliveries WHERE automation_id = ?1`)
        .bind(hook._id)
        .first<{ id: string; run_id: string; status: string }>();
      return d?.status === "failed" ? d : null;
    });
    const [relayRun] = await finishedRuns(a.user.token, relay._id);
    const cascadeId = (await shardD1(hook._id)
      .prepare(`SELECT cascade_id FROM automation_runs WHERE id = ?1`)
      .bind(delivery.run_id)
      .first<string>("cascade_id"))!;
    expect(cascadeId).toBe(
      await shardD1(relay._id)
        .prepare(`SELECT cascade_id FROM automation_runs WHERE id = ?1`)
        .bind(relayRun._id)
        .first<string>("cascade_id"),
    );
    const spent = () =>
      shardD1(a.projectId)
        .prepare(`SELECT writes, deliveries FROM automation_cascades WHERE id = ?1`)
        .bind(cascadeId)
        .first<{ writes: number; deliveries: number }>();
    // The relay's write and the hook's delivery are both at home; B's database keeps no row of the cascade.
    expect(await spent()).toEqual({ writes: 1, deliveries: 1 });
    expect(await whereIs("automation_cascades", "id", cascadeId)).toEqual([shardBindingOfId(a.projectId)]);
    await ok("POST", `/automation/delivery/${delivery.id}/redeliver`, { token: a.user.token });
    expect(await spent()).toEqual({ writes: 1, deliveries: 2 });
    const retry = (await ok("POST", `/automation/run/${delivery.run_id}/retry`, { token: a.user.token })).data;
    const done = await eventually(async () => {
      const r = (await ok("GET", `/automation/run/${retry._id}`, { token: a.user.token })).data;
      return r.status !== "queued" && r.status !== "running" ? r : null;
    });
    expect(done).toMatchObject({ status: "succeeded", externalWrites: 1 });
    expect(await spent()).toEqual({ writes: 1, deliveries: 3 });
    expect(await whereIs("automation_cascades", "id", cascadeId)).toEqual([shardBindingOfId(a.projectId)]);
  });
});

const runCount = async (automationId: string) =>
  Number(
    (await shardD1(automationId)
      .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`)
      .bind(automationId)
      .first<{ n: number }>())!.n,
  );

describe("event triggers across shard databases", () => {
  it("a trigger watching another organization's project on another database fires there, follows a change and stops at delete", async () => {
    const [a, b] = orgs;
    const watched = await makeTable(a.user.token, b.projectId, "Watched");
    const next = await makeTable(a.user.token, b.projectId, "Watched next");
    const copies = await makeTable(a.user.token, a.projectId, "Copies");
    const trigger = (tableId: string) => [{ event: "row.created", projectId: b.projectId, filter: { tableId } }];
    const auto = (
      await ok("POST", "/automation", {
        token: a.user.token,
        body: {
          projectId: a.projectId,
          name: "Across",
          triggers: trigger(watched.tableId),
          // Held against the triggering row, which the run reads in B's database.
          conditions: { predicates: [{ columnId: watched.nameColumnId, op: "eq", value: "hello" }] },
          actions: [
            {
              id: "copy",
              spec: { kind: "row.create", tableId: copies.tableId, cells: { [copies.nameColumnId]: "seen" } },
            },
          ],
        },
      })
    ).data;
    // The automation and its trigger row stay at home; B's database holds a pointer to it, nothing else of it.
    const home = shardBindingOfId(a.projectId)!;
    const away = shardBindingOfId(b.projectId)!;
    expect(await whereIs("automations", "id", auto._id)).toEqual([home]);
    expect(await whereIs("automation_event_triggers", "automation_id", auto._id)).toEqual([]);
    expect(await whereIs("automation_remote_triggers", "automation_id", auto._id)).toEqual([away]);

    // B's owner writes a row in the watched table: the run is A's, in A's database, and reads the row in B's.
    await addRow(b.user.token, watched.tableId, { [watched.nameColumnId]: "hello" });
    const [run] = await finishedRuns(a.user.token, auto._id);
    expect(run).toMatchObject({
      status: "succeeded",
      affectedRows: 1,
      trigger: { type: "event", event: "row.created", tableId: watched.tableId },
    });
    expect(await whereIs("rows", "id", run.trigger.rowId)).toEqual([away]);
    expect(await whereIs("automation_runs", "id", run._id)).toEqual([home]);
    expect(await runCount(auto._id)).toBe(1);
    // The cascade the person's write began is at home where the write was (B's database); the run was booked there.
    const cascadeId = await shardD1(auto._id)
      .prepare(`SELECT cascade_id FROM automation_runs WHERE id = ?1`)
      .bind(run._id)
      .first<string>("cascade_id");
    expect(await whereIs("automation_cascades", "id", cascadeId!)).toEqual([away]);

    // A change of the trigger: the old table no longer fires, the new one does; the old pointer is tidied away.
    await ok("PATCH", `/automation/${auto._id}`, { token: a.user.token, body: { triggers: trigger(next.tableId) } });
    await ok("PATCH", `/automation/${auto._id}`, {
      token: a.user.token,
      body: { conditions: { predicates: [{ columnId: next.nameColumnId, op: "eq", value: "hello" }] } },
    });
    await addRow(b.user.token, watched.tableId, { [watched.nameColumnId]: "hello" });
    await addRow(b.user.token, next.tableId, { [next.nameColumnId]: "hello" });
    const runs = await finishedRuns(a.user.token, auto._id, 2);
    await sleep(1000);
    expect(await runCount(auto._id)).toBe(2);
    expect(runs.map((r: any) => r.trigger.tableId).sort()).toEqual([watched.tableId, next.tableId].sort());
    await eventually(
      async () => (await pointers(b.projectId, auto._id)).length === 1 || null,
      10_000,
      "the old pointer to be dropped",
    );
    expect((await pointers(b.projectId, auto._id))[0]).toMatchObject({ position: 0, version: 1 });
    expect(runs.every((r: any) => r.status === "succeeded")).toBe(true);

    // Deleted: nothing fires, and its pointers go.
    await ok("DELETE", `/automation/${auto._id}`, { token: a.user.token });
    await addRow(b.user.token, next.tableId, { [next.nameColumnId]: "hello" });
    await sleep(1000);
    expect(await runCount(auto._id)).toBe(2);
    await eventually(
      async () => (await pointers(b.projectId, auto._id)).length === 0 || null,
      10_000,
      "the pointers to be dropped",
    );
  });

  it("an event on a project its owner can no longer read creates no run and no record of it, and its pointer is dropped", async () => {
    const [, b] = orgs;
    const c = await registerUser("Shard watcher");
    await addWorkspaceCollaborator(b.user, b.user.workspaceId, c, "viewer");
    const watched = await makeTable(b.user.token, b.projectId, "Watched by a viewer");
    const cProject = (
      await ok("POST", "/project", { token: c.token, body: { workspaceId: c.workspaceId, name: "Watching" } })
    ).data._id;
    const auto = (
      await ok("POST", "/automation", {
        token: c.token,
        body: {
          projectId: cProject,
          name: "Watch rows",
          triggers: [{ event: "row.created", projectId: b.projectId, filter: { tableId: watched.tableId } }],
          actions: [{ id: "n", spec: { kind: "notify", title: "New row" } }],
        },
      })
    ).data;
    // B's own automation on the same table: its run says the event was looked up.
    const control = (
      await ok("POST", "/automation", {
        token: b.user.token,
        body: {
          projectId: b.projectId,
          name: "Control",
          triggers: [{ event: "row.created", filter: { tableId: watched.tableId } }],
          actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
        },
      })
    ).data;
    await addRow(b.user.token, watched.tableId);
    const [seen] = await finishedRuns(c.token, auto._id);
    expect(seen).toMatchObject({ status: "succeeded", trigger: { event: "row.created", projectId: b.projectId } });
    expect((await pointers(b.projectId, auto._id)).length).toBe(1);

    await ok("DELETE", `/workspace/${b.user.workspaceId}/collaborator/${c.id}`, { token: b.user.token });
    const unseen = await addRow(b.user.token, watched.tableId);
    await finishedRuns(b.user.token, control._id, 2);
    // The pointer went in the lookup that found it unreadable, before any run was planned.
    expect(await pointers(b.projectId, auto._id)).toEqual([]);
    await sleep(1000);
    // No run, and no record anywhere of the row C can no longer read.
    expect((await runsOf(c.token, auto._id)).map((r: any) => r._id)).toEqual([seen._id]);
    expect(await whereIs("automation_runs", "automation_id", auto._id)).toEqual([shardBindingOfId(auto._id)]);
    expect(await runCount(auto._id)).toBe(1);
    for (const d1 of everyShardD1()) {
      const n = await d1
        .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1 AND "trigger" LIKE ?2`)
        .bind(auto._id, `%${unseen.row._id}%`)
        .first<number>("n");
      expect(n).toBe(0);
    }
    // Later events of the project find no pointer: still nothing.
    await addRow(b.user.token, watched.tableId);
    await finishedRuns(b.user.token, control._id, 3);
    await sleep(500);
    expect(await runCount(auto._id)).toBe(1);
  });

  it("a trigger on another organization's project the caller cannot read is 404 and leaves no pointer; a bad cron with it is still 404", async () => {
    const [a, b] = orgs;
    const stranger = await registerUser("Shard stranger");
    const project = (
      await ok("POST", "/project", { token: stranger.token, body: { workspaceId: stranger.workspaceId, name: "Mine" } })
    ).data._id;
    const before = await d1Count(b.projectId);
    const refused = await call("POST", "/automation", {
      token: stranger.token,
      body: {
        projectId: project,
        name: "Peek",
        triggers: [{ event: "row.created", projectId: b.projectId }],
        actions: [],
      },
    });
    expectError(refused, 404, "NotFoundError");
    const both = await call("POST", "/automation", {
      token: stranger.token,
      body: {
        projectId: project,
        name: "Peek",
        triggers: [{ event: "row.created", projectId: b.projectId }, { cron: "not a cron" }],
        actions: [],
      },
    });
    expectError(both, 404, "NotFoundError");
    expect(await d1Count(b.projectId)).toBe(before);
    // With access, the same request is taken (A can read B's project).
    const accepted = await ok("POST", "/automation", {
      token: a.user.token,
      body: {
        projectId: a.projectId,
        name: "Peek",
        triggers: [{ event: "row.created", projectId: b.projectId }],
        actions: [],
      },
    });
    expect((await pointers(b.projectId, accepted.data._id)).length).toBe(1);
  });
});

const pointers = async (projectId: string, automationId: string) =>
  (
    await shardD1(projectId)
      .prepare(`SELECT position, version FROM automation_remote_triggers WHERE project_id = ?1 AND automation_id = ?2`)
      .bind(projectId, automationId)
      .all<{ position: number; version: number }>()
  ).results;

const d1Count = async (projectId: string) =>
  Number(
    await shardD1(projectId)
      .prepare(`SELECT count(*) AS n FROM automation_remote_triggers WHERE project_id = ?1`)
      .bind(projectId)
      .first("n"),
  );

/** Waits until the automation has no queued or running run and its run count has stopped changing; answers the count. */
async function settled(automationId: string): Promise<number> {
  let last = -1;
  const d1 = shardD1(automationId);
  return eventually(
    async () => {
      const row = await d1
        .prepare(
          `SELECT count(*) AS n, sum(status IN ('queued', 'running')) AS open FROM automation_runs WHERE automation_id = ?1`,
        )
        .bind(automationId)
        .first<{ n: number; open: number | null }>();
      const stable = Number(row!.open ?? 0) === 0 && row!.n === last;
      last = row!.n;
      if (stable) await sleep(500);
      return stable ? row!.n : null;
    },
    240_000,
    `the runs of ${automationId} to settle`,
  );
}
