/**
 * Events whose runs cannot be created when they happen are not lost (docs/scaling.md, "What a client sees"): the
 * write they follow has succeeded, so a shard database that refuses the runs' creation
 * (here: fenced read-only, as during a move of its logical shard) sends the events to the queue, which creates the
 * runs once the database takes writes again, each exactly once however often the retry is delivered.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { ok, registerUser } from "../../support/harness";
import { makeTable } from "../../support/tableHarness";
import { finishedRuns, sleep } from "../../support/automations";
import { shardD1 } from "../../support/shards";
import { logicalShardOfId } from "../../../src/tenancy/kernel/ids";
import { rowEvent } from "../../../src/services/events/events";
import { retryEvents, runsForEvents } from "../../../src/services/automations/events";

const fenced: { projectId: string; logical: number }[] = [];

afterEach(async () => {
  for (const { projectId, logical } of fenced.splice(0))
    await shardD1(projectId).prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(logical).run();
});

async function fence(projectId: string) {
  const logical = logicalShardOfId(projectId)!;
  fenced.push({ projectId, logical });
  await shardD1(projectId)
    .prepare(
      `INSERT INTO shard_fence (logical, state, moved_to, updated_at) VALUES (?1, 'read-only', NULL, 0) ON CONFLICT (logical) DO UPDATE SET state = excluded.state, moved_to = excluded.moved_to`,
    )
    .bind(logical)
    .run();
}

describe("events whose runs could not be created", () => {
  it("are retried through the queue once the shard database takes writes again, and make each run once", async () => {
    const u = await registerUser("Deferred events");
    const projectId = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Deferred" } })
    ).data._id as string;
    const table = await makeTable(u.token, projectId, "Watched");
    const auto = (
      await ok("POST", "/automation", {
        token: u.token,
        body: {
          projectId,
          name: "Later",
          triggers: [{ event: "row.created", filter: { tableId: table.tableId } }],
          actions: [{ id: "n", spec: { kind: "notify", title: "Row" } }],
        },
      })
    ).data;
    const runsOf = async () =>
      Number(
        await shardD1(auto._id)
          .prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`)
          .bind(auto._id)
          .first("n"),
      );

    // A row written just before its shard was fenced: its event arrives while the database refuses writes.
    await fence(projectId);
    const event = rowEvent(
      "row.created",
      { id: table.tableId, projectId, documentId: null },
      `${table.tableId.slice(0, -2)}ZZ`,
    );
    expect(await runsForEvents(env, [event], 0, null)).toBe(0);
    await sleep(200);
    expect(await runsOf()).toBe(0);

    // The fence lifts (the move ended, or was abandoned): the queued retry creates the run.
    await shardD1(projectId)
      .prepare(`DELETE FROM shard_fence WHERE logical = ?1`)
      .bind(logicalShardOfId(projectId))
      .run();
    const [run] = await finishedRuns(u.token, auto._id, 1, 30_000);
    expect(run).toMatchObject({
      status: "succeeded",
      trigger: { event: "row.created", tableId: table.tableId, eventId: expect.any(String) },
    });

    // The same retry delivered again (the queue delivers at least once) creates nothing more.
    const cascadeId = (await shardD1(auto._id)
      .prepare(`SELECT cascade_id FROM automation_runs WHERE id = ?1`)
      .bind(run._id)
      .first<string>("cascade_id"))!;
    const again = await retryEvents(env, {
      kind: "events",
      events: [{ ...event, eventId: run.trigger.eventId }],
      depth: 0,
      cascadeId,
      causedByRun: false,
    });
    expect(again).toBe(0);
    expect(await runsOf()).toBe(1);
  });
});
