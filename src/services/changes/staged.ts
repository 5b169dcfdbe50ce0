/**
 * Staged entries of large writes (docs/api-guide.md › Changes, history and audit, "What the log costs a write"). A
 * write of STAGE_FROM_CELLS cells or more (or a create of STAGE_FROM_ROWS rows or more) does not build its
 * `row.updated` (`row.created`) entries in its own batch: it stages them, in that batch, as ONE row of
 * change_log_staged per chunk holding each cell's row, column, stored value before and value after (the created
 * rows' entries as built), with a reserved range of sequence numbers. Deleting that row folds it into change_log (the
 * trigger `change_log_staged_fold`, migrations/shard/0023): the same entries the write would have appended, numbered
 * in the range it reserved, so the order of the log is the commit order as before.
 *
 * Who folds: the write itself just after its answer (`foldAfterResponse`); every reader of the log before it reads —
 * the feed, histories, the audit read and webhook subscriptions first in their own read batch (`foldQuery`), the
 * automation triggers' step when its read finds something staged (`foldStatement`); and the minute's upkeep
 * (`foldEveryShard`) for a write whose after-response work never ran. A reader therefore never sees an entry numbered
 * after one still staged, and a staged row is never lost: it was committed with the write it records. A logical shard
 * fenced by a move is left alone: its rows are copied to the new database, which folds them there.
 */
import { sql } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { changeLogStaged } from "../../db/schema";
import { statement } from "../../db/d1";
import { uncountedD1 } from "../../db/instrument";
import { onEveryShardDatabase } from "../upkeep";
import { afterResponse, type ServiceContext } from "../context";

/** The base of the next sequence numbers of this database: above every entry and every range a staged row holds. */
export const NEXT_SEQ = `(SELECT max(COALESCE((SELECT MAX(seq) FROM change_log), 0), COALESCE((SELECT MAX(seq_end) FROM change_log_staged), 0)))`;

/** Cells in one write from which its entries are staged instead of built in its batch. */
export const STAGE_FROM_CELLS = 200;

/**
 * One staged row for the cells `?8` (`[cellId, rowId, columnId, isIdentifier, value]`, as the cell upsert takes them)
 * of live rows of table ?5, each with its stored value before appended (read BEFORE the upsert: the statement goes
 * before it). The upsert may then take its cells from the staged row (src/services/tables/queries.ts,
 * cellUpsertFromStagedStatement) instead of a second copy of the JSON. Params as the entries' (`at, kind,
 * workspaceId, projectId, tableId, actor, source`), then the cells and the staged row's id.
 */
export const STAGE_CELLS = `INSERT INTO change_log_staged (id, seq_start, seq_end, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, cells)
  SELECT ?9, n.s, n.s + json_array_length(?8), ?1, ?2, (SELECT organization_id FROM workspaces WHERE id = ?3), ?3, ?4, ?5,
    ?6, ?7,
    (SELECT json_group_array(json_insert(j.value, '$[#]',
        (SELECT x.data FROM cells x WHERE x.row_id = j.value ->> 1 AND x.column_id = j.value ->> 2 AND x.is_deleted = 0)))
      FROM json_each(?8) j
      WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?5 AND r.is_deleted = 0))
  FROM (SELECT ${NEXT_SEQ} AS s) n`;

/**
 * One staged row for the entries of rows a write created (`?8`: `[rowId, changes]`, as ROWS_WITH_CHANGES in ./log.ts
 * takes them), kept for the rows of table ?5 the batch inserted (the statement goes after the insert). Params as
 * STAGE_CELLS's.
 */
export const STAGE_CREATED = `INSERT INTO change_log_staged (id, seq_start, seq_end, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, cells)
  SELECT ?9, n.s, n.s + json_array_length(?8), ?1, ?2, (SELECT organization_id FROM workspaces WHERE id = ?3), ?3, ?4, ?5,
    ?6, ?7,
    (SELECT json_group_array(json(j.value)) FROM json_each(?8) j
      WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 0 AND r.table_id = ?5 AND r.is_deleted = 0))
  FROM (SELECT ${NEXT_SEQ} AS s) n`;

/**
 * STAGE_CELLS for a batch that has already made sure every row it names is a live row of the table (a guard on the
 * count its touch of the rows changed, src/services/tables/queries.ts guardStatement): the rows are not looked
 * up again.
 */
export const STAGE_GUARDED_CELLS = STAGE_CELLS.replace(
  "\n      WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?5 AND r.is_deleted = 0))",
  ")",
);

/** Rows in one create from which their entries are staged. */
export const STAGE_FROM_ROWS = 100;

/** The staged rows a fold takes: every one but those of a logical shard a move has fenced. */
const UNFENCED = `NOT EXISTS (SELECT 1 FROM shard_fence f WHERE f.state <> 'active'
  AND substr(change_log_staged.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1)
    || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1))`;

/** The fold as a Drizzle query, to go FIRST in a reader's `read()` batch (a no-op when nothing is staged). */
export function foldQuery(db: Db) {
  return db.delete(changeLogStaged).where(sql.raw(UNFENCED));
}

/** The fold as a raw D1 statement, to go first in a reader's batch on the binding. */
export function foldStatement(d1: D1Database): D1PreparedStatement {
  return statement(d1, `DELETE FROM change_log_staged WHERE ${UNFENCED}`);
}

/** After a write that staged entries: folds them once the answer is sent (a failure is left to the next reader). */
export function foldAfterResponse(ctx: ServiceContext, d1: D1Database): void {
  afterResponse(ctx, () =>
    foldStatement(uncountedD1(d1))
      .run()
      .then(
        () => undefined,
        (err: unknown) =>
          console.error(JSON.stringify({ level: "warn", msg: "staged change-log fold left", error: String(err) })),
      ),
  );
}

/** The minute's upkeep: whatever is still staged on every shard database (a write whose after-response work died). */
export async function foldEveryShard(env: Env): Promise<number> {
  const done = await onEveryShardDatabase(env, "staged change-log fold", async (d1) => {
    const res = await foldStatement(uncountedD1(d1)).run();
    return res.meta.changes ?? 0;
  });
  return done.total;
}
