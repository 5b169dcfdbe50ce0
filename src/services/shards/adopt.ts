/**
 * A local database from before the service had shard databases keeps everything in the directory (`DB`). Adoption
 * moves each logical shard found there to the shard database the map names (the move engine of
 * src/db/shardMove.ts: fenced, copied, verified, then the old copy dropped) and copies every user into every shard
 * (docs/scaling.md, "Adopting a database from before the shards"). `npm start` runs it through
 * `POST /admin/shards/adopt` on every start; with nothing left in the directory it does nothing.
 */
import { dropMovedCopy, moveLogicalShard } from "../../db/shardMove";
import { logicalShardOfId } from "../../db/shardIds";
import { bindingOf } from "../../db/shards";
import type { Env } from "../../env";
import { repairUserCopies } from "../identity/users";

/** Every organization-scoped table names its organization's records through these ids (enough to find the shards present). */
const PRESENCE = ["SELECT id FROM organizations", "SELECT id FROM workspaces", "SELECT organization_id AS id FROM workspaces"];

export interface AdoptionReport {
  /** Users copied into shard databases that lacked them. */
  usersCopied: number;
  /** Each logical shard moved out of the directory: where to and how many rows per table. */
  moved: { logical: number; to: string; rows: number }[];
}

export async function adoptLegacyData(env: Env): Promise<AdoptionReport> {
  // Every user, however old: a shard's records reference users, and its copy must hold them before any row moves.
  const usersCopied = await repairUserCopies(env, 0, 0);
  const present = new Set<number>();
  for (const sql of PRESENCE) {
    const { results } = await env.DB.prepare(`${sql} LIMIT 10000`).all<{ id: string }>();
    for (const { id } of results) {
      const logical = logicalShardOfId(id);
      if (logical !== null) present.add(logical);
    }
  }
  const moved: AdoptionReport["moved"] = [];
  for (const logical of [...present].sort((a, b) => a - b)) {
    const to = bindingOf(logical);
    const report = await moveLogicalShard({ from: env.DB, to: env[to]!, logical, fromName: "DB", toName: to });
    await dropMovedCopy({ db: env.DB, logical });
    moved.push({ logical, to, rows: Object.values(report.tables).reduce((a, t) => a + t.rows, 0) });
  }
  return { usersCopied, moved };
}
