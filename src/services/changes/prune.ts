/**
 * Retention of the change log and the audit log (docs/api-guide.md › Changes, history and audit): entries older than
 * their retention (CHANGE_RETENTION_DAYS, default 30; AUDIT_RETENTION_DAYS, default 90) are deleted by the Worker's
 * scheduled upkeep every minute, PRUNE_ROWS per step and for at most PRUNE_MS per tick on each shard database, found
 * through each log's `at` index. A logical shard being moved away is left to its new database (writableHereSql), as
 * the other sweeps do.
 */
import type { Env } from "../../env";
import { statement } from "../../db/d1";
import { writableHereSql } from "../context";
import { onEveryShardDatabase } from "../upkeep";
import { retentionDays } from "./feed";

const PRUNE_ROWS = 1000;
const PRUNE_MS = 5_000;
const DAY_MS = 86_400_000;

/** A log kept for a number of days: its table, the column naming its logical shard, and its name in errors. */
interface AgedLog {
  table: "change_log" | "audit_log";
  shardKey: string;
  name: string;
}

async function pruneDatabase(d1: D1Database, log: AgedLog, cutoff: number): Promise<number> {
  const prune = `DELETE FROM ${log.table} WHERE rowid IN (
    SELECT rowid FROM ${log.table} WHERE at < ?1 AND ${writableHereSql(`${log.table}.${log.shardKey}`)} ORDER BY at LIMIT ?2)`;
  let pruned = 0;
  const started = performance.now();
  while (performance.now() - started < PRUNE_MS) {
    const n = (await statement(d1, prune, cutoff, PRUNE_ROWS).run()).meta.changes ?? 0;
    pruned += n;
    if (n < PRUNE_ROWS) break;
  }
  return pruned;
}

/** Every shard database side by side; the entries deleted. A database that fails is pruned again at the next tick. */
async function pruneOlderThan(env: Env, log: AgedLog, cutoff: number): Promise<number> {
  return (await onEveryShardDatabase(env, `${log.name} prune`, (d1) => pruneDatabase(d1, log, cutoff))).total;
}

/** Days the audit log keeps its entries (`AUDIT_RETENTION_DAYS`, default 90). */
function auditRetentionDays(env: { AUDIT_RETENTION_DAYS?: string }): number {
  const days = Number(env.AUDIT_RETENTION_DAYS ?? "90");
  return Number.isFinite(days) && days > 0 ? days : 90;
}

export const pruneChangeLog = (env: Env, now: number) =>
  pruneOlderThan(
    env,
    { table: "change_log", shardKey: "workspace_id", name: "change log" },
    now - retentionDays(env) * DAY_MS,
  );

export const pruneAuditLog = (env: Env, now: number) =>
  pruneOlderThan(
    env,
    { table: "audit_log", shardKey: "organization_id", name: "audit log" },
    now - auditRetentionDays(env) * DAY_MS,
  );
