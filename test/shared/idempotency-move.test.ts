/**
 * An Idempotency-Key's claim moves with its logical shard (docs/scaling.md "Idempotency-Keys"): a keyed write retried
 * after its organization's shard moved to another database is replayed, not executed a second time.
 */
import { env } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { call, ok, registerUser } from "../support/harness";
import { shardMover } from "../support/shards";

const mover = shardMover();
afterAll(() => mover.restore());

describe("Idempotency-Keys across a shard move", () => {
  it("replays a keyed write retried after its shard moved, and creates nothing twice", async () => {
    const u = await registerUser("Keyed mover");
    const key = `move-${crypto.randomUUID()}`;
    const name = `Keyed ${crypto.randomUUID()}`;
    const first = await ok("POST", "/project", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { workspaceId: u.workspaceId, name },
    });
    const { away } = await mover.moveAway(u.workspaceId);
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
