/**
 * Cascades are bounded as a whole (docs/api-guide.md, automations): everything one cause sets off shares one budget
 * of writes and deliveries, every start counts depth the same, retries stay in their cascade, disabled automations
 * never run, and a project runs a bounded number of automations a day. These tests count rows, runs and
 * deliveries per cause; none measures time.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, type RegisteredUser } from "../../support/harness";
import { addRow, bulkRows, makeTable } from "../../support/tableHarness";
import { callScheduled, eventually, finishedRuns, hookUrl, sleep } from "../../support/automations";
import { shardD1 } from "../../support/shards";
import {
  CASCADE_BURST,
  CASCADE_DELIVERIES,
  CASCADE_RUNS,
  CASCADE_WRITES,
  DAILY_RUNS,
  PACE_MS_PER_WRITE,
  runStartDelays,
  startDelaysOf,
} from "../../../src/services/automations/cascade";

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

/** A count in the shard database of the record the first parameter names (an automation, a table…). */
async function count(sql: string, ...binds: unknown[]): Promise<number> {
  const row = await shardD1(String(binds[0]))
    .prepare(sql)
    .bind(...binds)
    .first<{ n: number }>();
  return Number(row?.n ?? 0);
}

/** Waits until the automation has no queued or running run and its run count has stopped changing. */
async function settled(automationId: string, timeoutMs = 240_000): Promise<number> {
  let last = -1;
  return eventually(
    async () => {
      const open = await count(
        `SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1 AND status IN ('queued', 'running')`,
        automationId,
      );
      const all = await count(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`, automationId);
      const stable = open === 0 && all === last;
      last = all;
      if (stable) await sleep(500);
      return stable ? all : null;
    },
    timeoutMs,
    `the cascade of ${automationId} to settle`,
  );
}

describe("cascade budget", () => {
  it(
    "on row created in A, create 50 rows in A: one write causes at most 1,000 automation writes",
    { timeout: 300_000 },
    async () => {
      const a = await makeTable(owner.token, projectId, "Fan-out");
      const k = 50;
      const auto = await automation({
        triggers: [{ event: "row.created", filter: { tableId: a.tableId } }],
        // The longest time budget, so that only the cascade budget stops the runs (50 run at once here).
        behavior: { maxDurationMs: 900_000 },
        actions: Array.from({ length: k }, (_, i) => ({
          id: `c${i}`,
          spec: { kind: "row.create", tableId: a.tableId },
        })),
      });
      await addRow(owner.token, a.tableId);
      const runs = await settled(auto._id);
      const rows = await count(`SELECT count(*) AS n FROM rows WHERE table_id = ?1 AND is_deleted = 0`, a.tableId);
      // Without the budget: 1 + 50 + 50² + 50³ = 127,551 rows.
      // Each write is reserved before it is made: the person's row plus at most the budget (a write that fails
      // after its reservation leaves the count a little under it).
      expect(rows).toBeLessThanOrEqual(1 + CASCADE_WRITES);
      expect(rows).toBeGreaterThan(CASCADE_WRITES - k);
      expect(runs).toBeLessThanOrEqual(1 + CASCADE_RUNS);
      const cascades = await shardD1(auto._id)
        .prepare(`SELECT DISTINCT cascade_id AS c FROM automation_runs WHERE automation_id = ?1`)
        .bind(auto._id)
        .all<{ c: string }>();
      expect(cascades.results).toHaveLength(1);
      const cascade = await shardD1(auto._id)
        .prepare(`SELECT writes, deliveries, runs FROM automation_cascades WHERE id = ?1`)
        .bind(cascades.results[0]!.c)
        .first<any>();
      expect(cascade.writes).toBe(CASCADE_WRITES);
      // Runs are created only while the budget can pay for them (each reserves its 50 writes when created): 1 run
      // at depth 1, 19 at depth 2, none at depth 3 — no run is queued just to be skipped.
      expect(runs).toBe(CASCADE_WRITES / k);
      expect(
        await count(
          `SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1 AND status = 'skipped'`,
          auto._id,
        ),
      ).toBe(0);
      // Skipped for the cause's budget is no failure of the automation: it stays enabled.
      expect((await ok("GET", `/automation/${auto._id}`, { token: owner.token })).data).toMatchObject({
        enabled: true,
        consecutiveFailures: 0,
      });
      // A retry of a run in that cascade spends the same, exhausted budget: it writes nothing.
      const [firstRun] = (
        await shardD1(auto._id)
          .prepare(`SELECT id FROM automation_runs WHERE automation_id = ?1 AND depth = 1`)
          .bind(auto._id)
          .all<{ id: string }>()
      ).results;
      const retry = (await ok("POST", `/automation/run/${firstRun!.id}/retry`, { token: owner.token })).data;
      expect(retry.depth).toBe(1);
      const done = await eventually(async () => {
        const r = (await ok("GET", `/automation/run/${retry._id}`, { token: owner.token })).data;
        return r.status !== "queued" && r.status !== "running" ? r : null;
      });
      expect(done).toMatchObject({ status: "skipped", error: { code: "CascadeBudgetExceeded" } });
      expect(await count(`SELECT count(*) AS n FROM rows WHERE table_id = ?1 AND is_deleted = 0`, a.tableId)).toBe(
        1 + CASCADE_WRITES,
      );
    },
  );

  it(
    "the worst fan-out (2 × 50 row writes, 50 webhooks): runs created per cause stay within what the budget can pay for",
    { timeout: 300_000 },
    async () => {
      const t = await makeTable(owner.token, projectId, "Worst");
      const key = `cascade-worst-${Date.now()}`;
      const trigger = [{ event: "row.created", filter: { tableId: t.tableId } }];
      const writers = [];
      for (const name of ["W1", "W2"]) {
        writers.push(
          await automation({
            name,
            triggers: trigger,
            behavior: { maxDurationMs: 900_000, operationBudget: 100_000, maxAffectedRows: 100_000 },
            actions: Array.from({ length: 50 }, (_, i) => ({
              id: `c${i}`,
              spec: { kind: "row.create", tableId: t.tableId },
            })),
          }),
        );
      }
      const hooks = await automation({
        name: "H",
        triggers: trigger,
        behavior: { externalWriteBudget: 100 },
        actions: Array.from({ length: 50 }, (_, i) => ({ id: `h${i}`, spec: { kind: "webhook", url: hookUrl(key) } })),
      });
      await addRow(owner.token, t.tableId);
      let runs = 0;
      for (const a of [...writers, hooks]) runs += await settled(a._id);
      // Without the reservation some 1,000 runs were created (most of them only to be skipped): now the writers'
      // runs are those 1,000 writes pay for at 50 each, the webhook runs those 100 deliveries pay for at 50 each.
      const writerRuns = await count(
        `SELECT count(*) AS n FROM automation_runs WHERE automation_id IN (?1, ?2)`,
        writers[0]._id,
        writers[1]._id,
      );
      const hookRuns = await count(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`, hooks._id);
      expect(writerRuns).toBeLessThanOrEqual(CASCADE_WRITES / 50);
      expect(hookRuns).toBeLessThanOrEqual(CASCADE_DELIVERIES / 50);
      expect(runs).toBe(writerRuns + hookRuns);
      expect(await count(`SELECT count(*) AS n FROM rows WHERE table_id = ?1 AND is_deleted = 0`, t.tableId)).toBe(
        1 + CASCADE_WRITES,
      );
      expect(await count(`SELECT count(*) AS n FROM automation_deliveries WHERE automation_id = ?1`, hooks._id)).toBe(
        CASCADE_DELIVERIES,
      );
      const cascade = await shardD1(hooks._id)
        .prepare(
          `SELECT c.runs, c.planned_writes AS pw, c.planned_deliveries AS pd FROM automation_cascades c WHERE c.id = (SELECT cascade_id FROM automation_runs WHERE automation_id = ?1 LIMIT 1)`,
        )
        .bind(hooks._id)
        .first<any>();
      expect(cascade).toEqual({ runs, pw: CASCADE_WRITES, pd: CASCADE_DELIVERIES });

      // The cascade took its turn: its clock moved on by everything its runs planned, at CASCADE_RATE…
      const paced = await shardD1(hooks._id)
        .prepare(
          `SELECT c.last_grant AS clock, MIN(r.created_at) AS firstCreated, MAX(r.started_at) AS lastStarted
       FROM automation_cascades c JOIN automation_runs r ON r.cascade_id = c.id WHERE c.id = (SELECT cascade_id FROM automation_runs WHERE automation_id = ?1 LIMIT 1)`,
        )
        .bind(hooks._id)
        .first<any>();
      const planned = CASCADE_WRITES + CASCADE_DELIVERIES;
      expect(paced.clock - paced.firstCreated).toBeGreaterThanOrEqual(planned * PACE_MS_PER_WRITE);
      // …and its last run (50 planned) was held back by its Queue delay until its turn, less the burst, had come.
      expect(paced.lastStarted - paced.firstCreated).toBeGreaterThanOrEqual(
        (planned - 50 - CASCADE_BURST) * PACE_MS_PER_WRITE,
      );
    },
  );

  it("the runs a person's write causes directly start at once, however many; runs caused by runs wait their turn", () => {
    const now = 1_000_000;
    const costs = Array(1000).fill(1);
    // A bulk insert of 1 000 rows: its 1 000 runs booked 1 000 writes on the clock, and none of them waits.
    expect(startDelaysOf(false, now + 1000 * PACE_MS_PER_WRITE, now, costs)).toBeUndefined();
    // The same runs caused by a run: past the burst they wait, the last about (1 000 − burst) turns.
    const delays = startDelaysOf(true, now + 1000 * PACE_MS_PER_WRITE, now, costs)!;
    expect(delays[0]).toBe(0);
    expect(delays.at(-1)).toBe(Math.ceil(((999 - CASCADE_BURST) * PACE_MS_PER_WRITE) / 1000));
  });

  it("a cascade's runs start on its clock: the first burst at once, each later one a turn after the cost of those before it", () => {
    const now = 1_000_000;
    const cost = 50;
    // Four runs of 50 planned writes on a fresh cascade (its clock moved on from now by their 200 writes).
    const delays = runStartDelays(now + 4 * cost * PACE_MS_PER_WRITE, now, [cost, cost, cost, cost]);
    const turn = (i: number) => i * cost * PACE_MS_PER_WRITE - CASCADE_BURST * PACE_MS_PER_WRITE;
    expect(delays).toEqual([0, 1, 2, 3].map((i) => Math.max(0, Math.ceil(turn(i) / 1000))));
    expect(delays.slice(0, CASCADE_BURST / cost + 1)).toEqual(Array(CASCADE_BURST / cost + 1).fill(0));
    expect(delays[3]).toBeGreaterThan(0);
    // A cascade already a minute ahead of now: the next run waits for its turn.
    expect(runStartDelays(now + 60_000 + cost * PACE_MS_PER_WRITE, now, [cost])).toEqual([
      Math.ceil((60_000 - CASCADE_BURST * PACE_MS_PER_WRITE) / 1000),
    ]);
  });

  it("webhook fan-out: one write causes at most 100 deliveries across all its runs", async () => {
    const src = await makeTable(owner.token, projectId, "Hooks");
    const key = `cascade-hooks-${Date.now()}`;
    const auto = await automation({
      triggers: [{ event: "row.created", filter: { tableId: src.tableId } }],
      behavior: { externalWriteBudget: 10 },
      actions: Array.from({ length: 10 }, (_, i) => ({ id: `h${i}`, spec: { kind: "webhook", url: hookUrl(key) } })),
    });
    // One request, 20 rows: 20 runs × 10 webhooks would be 200 deliveries.
    await bulkRows(
      owner.token,
      src.tableId,
      Array.from({ length: 20 }, () => ({})),
    );
    await settled(auto._id);
    // Each run reserves its 10 deliveries when it is created: 10 runs are created, the other 10 events cause none.
    expect(await count(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`, auto._id)).toBe(
      CASCADE_DELIVERIES / 10,
    );
    expect(await count(`SELECT count(*) AS n FROM automation_deliveries WHERE automation_id = ?1`, auto._id)).toBe(
      CASCADE_DELIVERIES,
    );
  });

  it("manual, retried and scheduled runs start at depth 1, like a run caused by a person's write", async () => {
    const loop = await makeTable(owner.token, projectId, "Loop by hand");
    const auto = await automation({
      triggers: [{ event: "row.created", filter: { tableId: loop.tableId } }],
      actions: [{ spec: { kind: "row.create", tableId: loop.tableId } }],
    });
    const manual = (await ok("POST", `/automation/${auto._id}/run`, { token: owner.token })).data;
    expect(manual.depth).toBe(1);
    await settled(auto._id);
    const depths = (
      await shardD1(auto._id)
        .prepare(`SELECT depth FROM automation_runs WHERE automation_id = ?1 ORDER BY depth`)
        .bind(auto._id)
        .all<{ depth: number }>()
    ).results;
    expect(depths.map((d) => d.depth)).toEqual([1, 2, 3]);
    // Three runs, three rows: the same as a person's write (whose own row makes the fourth).
    expect(await count(`SELECT count(*) AS n FROM rows WHERE table_id = ?1`, loop.tableId)).toBe(3);

    const sched = await automation({ triggers: [{ cron: "* * * * *" }], actions: [] });
    const due = (await ok("GET", `/automation/${sched._id}`, { token: owner.token })).data.nextRunAt;
    await callScheduled(due);
    const [run] = await finishedRuns(owner.token, sched._id);
    expect(run.depth).toBe(1);
  });

  it("a project starts at most 10,000 runs a day; past it runs are skipped and the owner is told once", async () => {
    const other = await registerUser("Busy project owner");
    const busy = (
      await ok("POST", "/project", { token: other.token, body: { workspaceId: other.workspaceId, name: "Busy" } })
    ).data._id;
    const auto = await automation({ actions: [{ spec: { kind: "notify", title: "x" } }] }, other.token, busy);
    const day = new Date().toISOString().slice(0, 10);
    await shardD1(busy)
      .prepare(`INSERT INTO automation_project_days (project_id, day, runs, notified) VALUES (?1, ?2, ?3, 0)`)
      .bind(busy, day, DAILY_RUNS)
      .run();
    await ok("POST", `/automation/${auto._id}/run`, { token: other.token });
    await ok("POST", `/automation/${auto._id}/run`, { token: other.token });
    const done = await finishedRuns(other.token, auto._id, 2);
    for (const r of done) expect(r).toMatchObject({ status: "skipped", error: { code: "DailyRunLimitExceeded" } });
    const notes = (await ok("GET", "/notification/all", { token: other.token })).data;
    expect(notes.filter((n: any) => n.kind === "automation.notify")).toHaveLength(0);
    expect(notes.filter((n: any) => n.kind === "automation.dailyLimit")).toHaveLength(1);
  });
});
