/**
 * An Idempotency-Key's claim moves with its logical shard (docs/scaling.md "Idempotency-Keys"): a keyed write retried
 * after its organization's shard moved to another database is replayed, not executed a second time.
 */
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { servingBindingOf } from "../../src/tenancy/kernel/placements";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings, type ShardBinding } from "../../src/tenancy/kernel/map";
import { ADMIN_TOKEN, call, ok, registerUser } from "../support/harness";

let moved: { logical: number; home: ShardBinding; away: ShardBinding } | null = null;

async function moveTo(logical: number, to: ShardBinding) {
  let cursor: string | undefined;
  for (;;) {
    const step = await ok("POST", "/admin/shards/move", {
      token: ADMIN_TOKEN,
      body: { logical, to, ...(cursor && { cursor }) },
    });
    if (step.data.done) return;
    cursor = step.data.cursor;
  }
}

afterAll(async () => {
  if (!moved) return;
  await moveTo(moved.logical, moved.home);
  await call("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical: moved.logical, from: moved.away } });
});

describe("Idempotency-Keys across a shard move", () => {
  it("replays a keyed write retried after its shard moved, and creates nothing twice", async () => {
    const u = await registerUser("Keyed mover");
    const logical = logicalShardOfId(u.workspaceId)!;
    const home = servingBindingOf(logical);
    const bindings = shardBindings();
    const away = bindings[(bindings.indexOf(home) + 1) % bindings.length]!;
    const key = `move-${crypto.randomUUID()}`;
    const name = `Keyed ${crypto.randomUUID()}`;
    const first = await ok("POST", "/project", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { workspaceId: u.workspaceId, name },
    });
    await moveTo(logical, away);
    moved = { logical, home, away };
    await ok("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: home } });
    const again = await call("POST", "/project", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { workspaceId: u.workspaceId, name },
    });
    expect(again.status).toBe(200);
    expect(again.body.data._id).toBe(first.data._id);
    const n = await env[away]!.prepare("SELECT count(*) AS n FROM projects WHERE name = ?1")
      .bind(name)
      .first<number>("n");
    expect(n).toBe(1);
  });
});
