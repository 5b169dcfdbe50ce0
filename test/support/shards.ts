// The D1 database a record lives in (docs/scaling.md): everything inside an organization is in the shard database
// its id names (through SHARD_MAP); users, tokens and notifications are in the directory (env.DB), and every shard
// keeps a copy of every user. Tests that look at rows directly ask here which database to look in.
import { env } from "cloudflare:test";
import { logicalShardOfId, shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings, type ShardBinding } from "../../src/tenancy/kernel/map";
import { servingBindingOf } from "../../src/tenancy/kernel/placements";
import { ADMIN_TOKEN, call, ok } from "./harness";

/** The shard database holding the record `id` (an organization, workspace, project, document, table, row…). */
export function shardD1(id: string): D1Database {
  const binding = shardBindingOfId(id);
  if (!binding) throw new Error(`${id} names no logical shard`);
  return env[binding]!;
}

/** Every shard database, in binding order. */
export function everyShardD1(): D1Database[] {
  return shardBindings().map((b) => env[b]!);
}

/** Moves logical shard `logical` to `to` through the admin route, step by step until it is done. */
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

/**
 * Moves the logical shard of a record through the admin routes, as an operator would: `moveAway(id)` carries it to the
 * next database and drops the old copy; `restore()` (for afterAll: other files share the databases) brings it home.
 */
export function shardMover() {
  let moved: { logical: number; home: ShardBinding; away: ShardBinding } | null = null;
  return {
    async moveAway(id: string) {
      const logical = logicalShardOfId(id)!;
      const home = servingBindingOf(logical);
      const bindings = shardBindings();
      const away = bindings[(bindings.indexOf(home) + 1) % bindings.length]!;
      await moveTo(logical, away);
      moved = { logical, home, away };
      await ok("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: home } });
      return moved;
    },
    async restore() {
      if (!moved) return;
      await moveTo(moved.logical, moved.home);
      await call("POST", "/admin/shards/drop", {
        token: ADMIN_TOKEN,
        body: { logical: moved.logical, from: moved.away },
      });
    },
  };
}
