/**
 * The deployment admin's shard actions in the audit log (docs/api-guide.md › Changes, history and audit), each in
 * the log of every organization of the logical shard, written in the database that serves them once the action is
 * finished: a move (`admin.shard_moved`), the deletion of the copy a move left behind (`admin.shard_copy_dropped`),
 * and a move given up, its copy deleted (`admin.shard_move_aborted`). An action that takes several calls is
 * recorded once, by the call that finishes it.
 */
import { statement } from "../../db/d1";
import { uncountedD1 } from "../../db/instrument";
import type { ServiceContext } from "../context";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

const ENTRY = `INSERT INTO audit_log (organization_id, seq, at, kind, record_id, workspace_id, project_id, actor, client_address, changes)
  SELECT o.id, (SELECT COALESCE(MAX(a.seq), 0) FROM audit_log a WHERE a.organization_id = o.id) + 1, ?1,
    ?5, '', NULL, NULL, '{"type":"system"}', ?2, ?3
  FROM organizations o WHERE length(o.id) = 28 AND substr(o.id, 27, 2) = ?4`;

type ShardKind = "admin.shard_moved" | "admin.shard_copy_dropped" | "admin.shard_move_aborted";

/** One entry of `kind` per organization of logical shard `logical`, in `database`, the one that serves them. */
async function recordShardAction(
  ctx: ServiceContext,
  entry: { kind: ShardKind; logical: number; database: string; changes: Record<string, unknown> },
): Promise<void> {
  const d1 = (ctx.env as unknown as Record<string, D1Database | undefined>)[entry.database];
  if (!d1) return;
  const suffix = CROCKFORD[Math.floor(entry.logical / 32)]! + CROCKFORD[entry.logical % 32]!;
  const changes = JSON.stringify({ logicalShard: { before: entry.logical, after: entry.logical }, ...entry.changes });
  await statement(uncountedD1(d1), ENTRY, ctx.now, ctx.clientAddress, changes, suffix, entry.kind).run();
}

/** After the step that finished the move of `logical` from `from` to `to`: one entry per organization moved. */
export async function recordShardMoved(
  ctx: ServiceContext,
  { move }: { move: { done: boolean; logical?: number; from?: string; to?: string } },
): Promise<void> {
  if (!move.done || move.logical === undefined || !move.to) return;
  await recordShardAction(ctx, {
    kind: "admin.shard_moved",
    logical: move.logical,
    database: move.to,
    changes: { database: { before: move.from ?? null, after: move.to } },
  });
}

/**
 * After the call that finished deleting a moved shard's old copy (`done`) from `from`: one entry per organization of
 * the shard, in `servedBy`, the database that serves them now.
 */
export async function recordShardCopyDropped(
  ctx: ServiceContext,
  { drop, servedBy }: { drop: { done: boolean; logical: number; from: string }; servedBy: string },
): Promise<void> {
  if (!drop.done) return;
  await recordShardAction(ctx, {
    kind: "admin.shard_copy_dropped",
    logical: drop.logical,
    database: servedBy,
    changes: { oldCopy: { before: drop.from, after: null } },
  });
}

/**
 * After the call that finished an abort (`done`: the move stopped and its target's copy deleted): one entry per
 * organization of the shard, in `from`, the database that serves them (they never left it).
 */
export async function recordShardMoveAborted(
  ctx: ServiceContext,
  { abort }: { abort: { done: boolean; logical: number; from: string; to: string | null } },
): Promise<void> {
  if (!abort.done) return;
  await recordShardAction(ctx, {
    kind: "admin.shard_move_aborted",
    logical: abort.logical,
    database: abort.from,
    changes: { moveTarget: { before: abort.to, after: null } },
  });
}
