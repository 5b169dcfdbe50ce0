/**
 * Automations on the sharded layout (docs/scaling.md): an automation's runs, deliveries, cascade, project day and the
 * rows its actions write are in the shard database its id names and in no other; its notices are in the directory,
 * where GET /notification/all reads them; events and the Cron claim find automations in every shard database.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, type RegisteredUser } from "../../support/harness";
import { addRow, makeTable } from "../../support/tableHarness";
import { callScheduled, finishedRuns, hookUrl, webhookAction } from "../../support/automations";
import { everyShardD1, shardD1 } from "../../support/shards";
import { shardBindingOfId } from "../../../src/db/shardIds";

interface Org {
  user: RegisteredUser;
  projectId: string;
}

/** Two users whose organizations are on different shard databases (placement is random: register until they are). */
async function twoOrgsOnTwoShards(): Promise<[Org, Org]> {
  const first = await registerUser("Shard A");
  let second = await registerUser("Shard B");
  for (let i = 0; i < 30 && shardBindingOfId(second.organizationId) === shardBindingOfId(first.organizationId); i++) second = await registerUser("Shard B");
  expect(shardBindingOfId(second.organizationId)).not.toBe(shardBindingOfId(first.organizationId));
  const project = async (u: RegisteredUser) => (await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Sharded" } })).data._id as string;
  return [
    { user: first, projectId: await project(first) },
    { user: second, projectId: await project(second) },
  ];
}

/** The databases (shards by index, or "DB") whose `table` holds a row with `column` = `value`. */
async function whereIs(table: string, column: string, value: string): Promise<string[]> {
  const found: string[] = [];
  const all: [string, D1Database][] = [["DB", env.DB], ...everyShardD1().map((d1, k): [string, D1Database] => [`SHARD_${k}`, d1])];
  for (const [name, d1] of all) {
    // Each kind of database has only its own tables (docs/scaling.md "Migrations per kind of database").
    if (!(await d1.prepare("SELECT 1 AS x FROM sqlite_master WHERE type = 'table' AND name = ?1").bind(table).first())) continue;
    const row = await d1.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?1`).bind(value).first<{ n: number }>();
    if (row!.n > 0) found.push(name);
  }
  return found;
}

let orgs: [Org, Org];

beforeAll(async () => {
  orgs = await twoOrgsOnTwoShards();
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
                { id: "copy", spec: { kind: "row.create", tableId: target.tableId, cells: { [target.nameColumnId]: "copied" } } },
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
    await Promise.all(setups.map(({ user, source }) => addRow(user.token, source.tableId, { [source.nameColumnId]: "x" })));
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
      const copied = await shardD1(target.tableId).prepare(`SELECT count(*) AS n FROM rows WHERE table_id = ?1`).bind(target.tableId).first<{ n: number }>();
      expect(copied!.n).toBe(1);
      expect(await whereIs("rows", "table_id", target.tableId)).toEqual([home]);
      expect(await whereIs("notifications", "user_id", user.id)).toEqual(["DB"]);
      const notes = (await ok("GET", "/notification/all", { token: user.token })).data;
      expect(notes.filter((n: any) => n.kind === "automation.notify" && n.data?.runId === run._id)).toHaveLength(1);
    }
  });

  it("the Cron claim finds due automations in every shard database in one tick", async () => {
    const made = await Promise.all(
      orgs.map(async ({ user, projectId }) => (await ok("POST", "/automation", { token: user.token, body: { projectId, name: "Every minute", triggers: [{ cron: "* * * * *" }], actions: [] } })).data),
    );
    const due = Math.max(...made.map((a) => a.nextRunAt as number));
    await callScheduled(due);
    for (const a of made) {
      const runs = await shardD1(a._id).prepare(`SELECT "trigger" FROM automation_runs WHERE automation_id = ?1`).bind(a._id).all<{ trigger: string }>();
      expect(runs.results.map((r) => JSON.parse(r.trigger).type)).toEqual(["schedule"]);
      expect(await whereIs("automation_runs", "automation_id", a._id)).toEqual([shardBindingOfId(a._id)]);
    }
  });
});
