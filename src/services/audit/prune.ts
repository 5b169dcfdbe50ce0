/**
 * Retention of the audit log (docs/api-guide.md › Changes, history and audit): entries older than
 * AUDIT_RETENTION_DAYS (default 90) are deleted by the Worker's scheduled upkeep every minute, PRUNE_ROWS per step
 * and for at most PRUNE_MS per tick on each shard database, found through audit_log_at_idx. A logical shard being
 * moved away is left to its new database (writableHereSql), as the change log's prune does.
 */
import type { Env } from "../../env";
import { statement } from "../../db/d1";
import { systemContext, writableHereSql } from "../context";

const PRUNE_ROWS = 1000;
const PRUNE_MS = 5_000;
const DAY_MS = 86_400_000;

/** Days the audit log keeps its entries (`AUDIT_RETENTION_DAYS`, default 90). */
export function auditRetentionDays(env: { AUDIT_RETENTION_DAYS?: string }): number {
  const days = Number(env.AUDIT_RETENTION_DAYS ?? "90");
  return Number.isFinite(days) && days > 0 ? days : 90;
}

const PRUNE = `DELETE FROM audit_log WHERE rowid IN (
  SELECT rowid FROM audit_log WHERE at < ?1 AND ${writableHereSql("audit_log.organization_id")} ORDER BY at LIMIT ?2)`;

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
export async function pruneAuditLog(env: Env, now: number): Promise<number> {
  const cutoff = now - auditRetentionDays(env) * DAY_MS;
  const settled = await Promise.allSettled(
    systemContext(env)
      .everyShard()
      .map(({ d1 }) => pruneDatabase(d1, cutoff)),
  );
  let total = 0;
  for (const s of settled) {
    if (s.status === "fulfilled") total += s.value;
    else console.error(JSON.stringify({ level: "error", msg: "audit log prune failed", error: String(s.reason) }));
  }
  return total;
}
