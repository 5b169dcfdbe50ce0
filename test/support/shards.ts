// The D1 database a record lives in (docs/scaling.md): everything inside an organization is in the shard database
// its id names (through SHARD_MAP); users, tokens and notifications are in the directory (env.DB), and every shard
// keeps a copy of every user. Tests that look at rows directly ask here which database to look in.
import { env } from "cloudflare:test";
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings } from "../../src/tenancy/kernel/map";

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
