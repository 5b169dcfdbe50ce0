/**
 * Retention of the change log (docs/api-guide.md › Changes, history and audit): entries older than
 * CHANGE_RETENTION_DAYS (default 30) are deleted by the Worker's scheduled upkeep every minute, PRUNE_ROWS per step
 * and for at most PRUNE_MS per tick on each shard database, found through change_log_at_idx. A logical shard
 * being moved away is left to its new database (writableHereSql), as the other sweeps do.
 */
import type { Env } from "../../env";
import { statement } from "../../db/d1";
import { systemContext, writableHereSql } from "../context";
import { retentionDays } from "./feed";

const PRUNE_ROWS = 1000;
const PRUNE_MS = 5_000;
const DAY_MS = 86_400_000;

const PRUNE = `DELETE FROM change_log WHERE rowid IN (
  SELECT rowid FROM change_log WHERE at < ?1 AND ${writableHereSql("change_log.workspace_id")} ORDER BY at LIMIT ?2)`;

async function pruneDatabase(d1: D1Database, cutoff: number): Promise<number> {
  let pruned = 0;
  const started = performance.now();
  while (performance.now() - started < PRUNE_MS) {
    const n = (await statement(d1, PRUNE, cutoff, PRUNE_ROWS).run()).meta.changes ?? 0;
    pruned += n;
    if (n < PRUNE_ROWS) break;
  }
  return pruned;
}

/** Every shard database side by side; the entries deleted. A database that fails is pruned again at the next tick. */
export async function pruneChangeLog(env: Env, now: number): Promise<number> {
  const cutoff = now - retentionDays(env) * DAY_MS;
  const settled = await Promise.allSettled(
    systemContext(env)
      .everyShard()
      .map(({ d1 }) => pruneDatabase(d1, cutoff)),
  );
  let total = 0;
  for (const s of settled) {
    if (s.status === "fulfilled") total += s.value;
    else console.error(JSON.stringify({ level: "error", msg: "change log prune failed", error: String(s.reason) }));
  }
  return total;
}
