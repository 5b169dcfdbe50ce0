/**
 * The deployment admin's actions in the audit log (docs/api-guide.md › Changes, history and audit): a finished move
 * of a logical shard is `admin.shard_moved` in the log of every organization it moved, written in the database
 * that serves them now.
 */
import { statement } from "../../db/d1";
import { uncountedD1 } from "../../db/instrument";
import type { ServiceContext } from "../context";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const MOVED = `INSERT INTO audit_log (organization_id, seq, at, kind, record_id, workspace_id, project_id, actor, client_address, changes)
  SELECT o.id, (SELECT COALESCE(MAX(a.seq), 0) FROM audit_log a WHERE a.organization_id = o.id) + 1, ?1,
    'admin.shard_moved', '', NULL, NULL, '{"type":"system"}', ?2, ?3
  FROM organizations o WHERE length(o.id) = 28 AND substr(o.id, 27, 2) = ?4`;

/** After the step that finished the move of `logical` from `from` to `to`: one entry per organization moved. */
export async function recordShardMoved(
  ctx: ServiceContext,
  { move }: { move: { done: boolean; logical?: number; from?: string; to?: string } },
): Promise<void> {
  if (!move.done || move.logical === undefined || !move.to) return;
  const d1 = (ctx.env as unknown as Record<string, D1Database | undefined>)[move.to];
  if (!d1) return;
  const suffix = CROCKFORD[Math.floor(move.logical / 32)]! + CROCKFORD[move.logical % 32]!;
  const changes = JSON.stringify({
    logicalShard: { before: move.logical, after: move.logical },
    database: { before: move.from ?? null, after: move.to },
  });
  await statement(uncountedD1(d1), MOVED, ctx.now, ctx.clientAddress, changes, suffix).run();
}
