/**
 * The fence in the shard databases (the shard baseline, migrations/shard/0000; docs/scaling.md "Moving a logical shard"): triggers on every
 * shard table refuse writes of a fenced logical shard, whatever writes them, and the writers that sweep a whole
 * database step around a fenced shard instead of failing for everyone in it.
 */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { SHARD_TABLES } from "../../src/tenancy/kernel/keys";
import { logicalShardOfId, shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings } from "../../src/tenancy/kernel/map";
import { claimAndEnqueue } from "../../src/services/automations/scheduler";
import { call, ok, registerUser, type RegisteredUser } from "../support/harness";

const fenced: { db: D1Database; logical: number }[] = [];

afterEach(async () => {
  for (const { db, logical } of fenced.splice(0))
    await db.prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(logical).run();
});

async function fence(db: D1Database, logical: number, state: "read-only" | "moved") {
  fenced.push({ db, logical });
  // A logical shard an earlier move went through keeps an `active` row (no row means the same); this one replaces it.
  await db
    .prepare(
      `INSERT INTO shard_fence (logical, state, moved_to, updated_at) VALUES (?1, ?2, ?3, 0) ON CONFLICT (logical) DO UPDATE SET state = excluded.state, moved_to = excluded.moved_to`,
    )
    .bind(logical, state, state === "moved" ? "SHARD_0" : null)
    .run();
}

async function everyMinute(u: RegisteredUser, name: string): Promise<string> {
  const project = (await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name } })).data;
  return (
    await ok("POST", "/automation", {
      token: u.token,
      body: { projectId: project._id, name, triggers: [{ cron: "* * * * *" }], actions: [] },
    })
  ).data._id;
}

describe("the fence's triggers", () => {
  it("are on every shard table of every shard database, for insert, update and delete", async () => {
    for (const binding of shardBindings()) {
      const { results } = await env[binding]!.prepare(
        `SELECT tbl_name AS t, name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'fence_%'`,
      ).all<{ t: string; name: string }>();
      for (const { name: table } of SHARD_TABLES) {
        expect(
          results
            .filter((r) => r.t === table)
            .map((r) => r.name)
            .sort(),
          `${binding} ${table}`,
        ).toEqual(["delete", "insert", "update"].map((op) => `fence_${table}_${op}`));
      }
    }
  });

  it("refuse a read-only shard's writes through the API with 503 and Retry-After, and let its neighbours write", async () => {
    const u = await registerUser("Fenced writer");
    const logical = logicalShardOfId(u.workspaceId)!;
    await fence(env[shardBindingOfId(u.workspaceId)!]!, logical, "read-only");
    const refused = await call("POST", "/project", {
      token: u.token,
      body: { workspaceId: u.workspaceId, name: "Refused" },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(refused.body).toMatchObject({ error: "ServiceUnavailableError" });
    // Nothing was written, and reads go on.
    expect(
      (await ok("GET", `/project/all/${u.workspaceId}`, { token: u.token })).data.map((p: { name: string }) => p.name),
    ).not.toContain("Refused");
  });
});

describe("the Cron claim beside a fenced shard", () => {
  it("skips the fenced shard's due automations, claims its neighbours' in the same database, and the fenced ones once the fence lifts", async () => {
    const a = await registerUser("Fenced schedules");
    const binding = shardBindingOfId(a.workspaceId)!;
    const logical = logicalShardOfId(a.workspaceId)!;
    // A neighbour: another logical shard in the same database.
    let b = await registerUser("Neighbour schedules");
    for (
      let i = 0;
      i < 60 && (shardBindingOfId(b.workspaceId) !== binding || logicalShardOfId(b.workspaceId) === logical);
      i++
    )
      b = await registerUser("Neighbour schedules");
    expect(shardBindingOfId(b.workspaceId)).toBe(binding);
    const [mine, theirs] = [await everyMinute(a, "Fenced"), await everyMinute(b, "Neighbour")];
    const runs = async (id: string) =>
      (await env[binding]!.prepare(`SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?1`)
        .bind(id)
        .first<number>("n"))!;

    await fence(env[binding]!, logical, "read-only");
    const tick = Date.now() + 10 * 60_000;
    await claimAndEnqueue(env, tick);
    expect(await runs(mine)).toBe(0);
    expect(await runs(theirs)).toBe(1);

    await env[binding]!.prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(logical).run();
    await claimAndEnqueue(env, tick);
    expect(await runs(mine)).toBe(1);
  });
});
