// What a move of one logical shard copies, in which order, and how it selects the shard's rows
// (docs/scaling.md "Moving a logical shard"). Pure: the move script (`npm run shard:move`, to be written after the request
// path is sharded) builds its statements from these, and so do its verification and the delete of the old copy.
import { getTableConfig } from "drizzle-orm/sqlite-core";
import { isLogicalShard } from "./map";
import { shardSuffix } from "../../lib/ids";
import { SHARD_TABLES, shardKeyOf, type ShardTable } from "./tables";

export { SHARD_TABLES, shardKeyOf, type ShardTable };

/**
 * Tables of a shard database that describe the database itself rather than an organization (the fence of
 * src/db/schema/fence.ts): they have no shard key and a move never copies them.
 */
export const PER_DATABASE_TABLES = ["shard_fence"] as const;

/**
 * The column of the Idempotency-Key claims (a directory table every shard keeps, src/db/schema/copies.ts) naming
 * the logical shard of the request that made the claim, by number; null for claims about no one shard.
 */
export const CLAIMS_KEY_COLUMN = "logical_shard";

/**
 * A SQL condition true for the rows of `column` on logical shard `logical`, with its parameters: the id's two last
 * characters (the 28-character form). It agrees with logicalShardOfId (./shardIds). The claims' CLAIMS_KEY_COLUMN
 * holds the number itself.
 */
export function shardCondition(column: string, logical: number): { sql: string; params: string[] } {
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  if (column === CLAIMS_KEY_COLUMN) return { sql: `${CLAIMS_KEY_COLUMN} = ?`, params: [String(logical)] };
  const digits = shardSuffix(logical);
  if (!/^[a-z][a-z0-9_]*$/.test(column)) throw new Error(`not a column name: ${column}`);
  const sharded = `(length(${column}) = 28 AND substr(${column}, 27, 2) = ?)`;
  return { sql: sharded, params: [digits] };
}

/**
 * The shard tables with every table after the tables it references (foreign keys enforced by D1), so a copy
 * inserts parents first; a delete of the old copy runs in the reverse order.
 */
export function shardTablesInCopyOrder(): ShardTable[] {
  const tables = SHARD_TABLES.map((d) => d.table);
  const parents = new Map<string, Set<string>>();
  for (const t of tables) {
    const config = getTableConfig(t);
    const refs = new Set(
      config.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name).filter((n) => n !== config.name),
    );
    parents.set(config.name, refs);
  }
  const order: string[] = [];
  const done = new Set<string>();
  const visit = (name: string, path: string[]) => {
    if (done.has(name) || !parents.has(name)) return;
    if (path.includes(name)) throw new Error(`foreign keys form a cycle: ${[...path, name].join(" → ")}`);
    for (const p of [...parents.get(name)!].sort()) visit(p, [...path, name]);
    done.add(name);
    order.push(name);
  };
  for (const name of [...parents.keys()].sort()) visit(name, []);
  return order as ShardTable[];
}
