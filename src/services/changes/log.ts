/**
 * The change log's statements (docs/api-guide.md › Changes, history and audit): the one helper every write path
 * calls for the statements that record its changes, which it puts in the SAME D1 batch as its write. A batch that
 * rolls back records nothing; a write that changes nothing records nothing (the statements compare the stored value
 * with the new one in SQL, before the write in the batch).
 */
import type { ServiceContext } from "../context";
import { statement } from "../../db/d1";
import { jsonArrayChunks } from "../../lib/jsonChunks";
// The next sequence numbers of this database: its base + n, in the inserting statement (commit order).
import { NEXT_SEQ, STAGE_CELLS, STAGE_CREATED, STAGE_FROM_CELLS, STAGE_FROM_ROWS, STAGE_GUARDED_CELLS } from "./staged";

/** Bytes of JSON per statement (D1 caps one bound value at 2 MB), as the cell writes chunk theirs. */
const CHUNK_BYTES = 1_000_000;

import { sql, type SQL } from "drizzle-orm";
import { changeLog, type CellChanges, type ChangeActor, type ChangeSource } from "../../db/schema/changes";

/** The record a row entry belongs to: its table (with its project and workspace). */
export interface LoggedTable {
  id: string;
  projectId: string;
  workspaceId: string;
}

const ORGANIZATION = `(SELECT organization_id FROM workspaces WHERE id = ?3)`;
const COLUMNS = `INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, changes)`;

/**
 * Row entries whose changes are known in full (created rows: `[rowId, changes]`), recorded only for rows the batch
 * inserted (the statement goes after the insert).
 */
const ROWS_WITH_CHANGES = `${COLUMNS}
  SELECT ${NEXT_SEQ} + j.key + 1, j.value ->> 0, ?1, ?2, ${ORGANIZATION}, ?3, ?4, ?5, ?6, ?7, j.value -> 1
  FROM json_each(?8) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 0 AND r.table_id = ?5 AND r.is_deleted = ?9)`;

/**
 * Cells about to be written (`[cellId, rowId, columnId, isIdentifier, value]`, as the bulk upsert takes them): one
 * entry per live row whose stored values differ, `{ before, after }` per changed column. Goes BEFORE the upsert.
 */
const CELL_CHANGES = `${COLUMNS}
  SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY min(c.k)), c.row_id, ?1, ?2, ${ORGANIZATION}, ?3, ?4, ?5, ?6, ?7,
    json_group_object(c.column_id, json_object('before', json(c.before), 'after', json(c.after)))
  FROM (
    SELECT j.key AS k, j.value ->> 1 AS row_id, j.value ->> 2 AS column_id,
      CASE WHEN j.value ->> 4 IS NULL THEN NULL ELSE j.value -> 4 END AS after,
      (SELECT x.data FROM cells x WHERE x.row_id = j.value ->> 1 AND x.column_id = j.value ->> 2 AND x.is_deleted = 0) AS before
    FROM json_each(?8) j
    WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?5 AND r.is_deleted = 0)
  ) c
  WHERE c.before IS NOT c.after
  GROUP BY c.row_id`;

/** Rows about to be deleted (`is_deleted` 0 → 1) or restored (1 → 0): a tombstone each. Goes BEFORE the update. */
const ROW_STATE = `${COLUMNS}
  SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY r.id), r.id, ?1, ?2, ${ORGANIZATION}, ?3, ?4, ?5, ?6, ?7, NULL
  FROM rows r
  WHERE r.table_id = ?5 AND r.is_deleted = ?9 AND r.id IN (SELECT value FROM json_each(?8))`;

/**
 * Formula and lookup cells about to be recomputed (`[rowId, columnId, JSON text | null]`): one `row.updated` per
 * live row whose stored values differ, each change marked `derived`. Goes BEFORE the cell writes.
 */
const DERIVED_CHANGES = `${COLUMNS}
  SELECT ${NEXT_SEQ} + row_number() OVER (ORDER BY min(c.k)), c.row_id, ?1, 'row.updated', ${ORGANIZATION}, ?3,
    (SELECT project_id FROM tables WHERE id = ?2), ?2, ?4, 'api',
    json_group_object(c.column_id, json_object('before', json(c.before), 'after', json(c.after), 'derived', json('true')))
  FROM (
    SELECT j.key AS k, j.value ->> 0 AS row_id, j.value ->> 1 AS column_id, j.value ->> 2 AS after,
      (SELECT x.data FROM cells x WHERE x.row_id = j.value ->> 0 AND x.column_id = j.value ->> 1 AND x.is_deleted = 0) AS before
    FROM json_each(?5) j
    WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 0 AND r.table_id = ?2 AND r.is_deleted = 0)
  ) c
  WHERE c.before IS NOT c.after
  GROUP BY c.row_id`;

/** The statements recording recomputed cells (the formula engine's writes), to go first in their batch. */
export function derivedCellLog(
  d1: D1Database,
  scope: { tableId: string; workspaceId: string; now: number; off: boolean },
  cells: readonly { rowId: string; columnId: string; data: string | null }[],
): D1PreparedStatement[] {
  if (scope.off) return [];
  const entries = cells.map((c) => [c.rowId, c.columnId, c.data]);
  const actor = JSON.stringify({ type: "system" } satisfies ChangeActor);
  return jsonArrayChunks(entries, CHUNK_BYTES).map((chunk) =>
    statement(d1, DERIVED_CHANGES, scope.now, scope.tableId, scope.workspaceId, actor, chunk),
  );
}

/** Who made the change, as the log records it (`actor`, docs/api-guide.md › Changes, history and audit). */
export function actorOf(ctx: ServiceContext): ChangeActor {
  const a = ctx.actor;
  if (a.type === "reader") return { type: "portal" };
  if (a.type === "user") return { type: "user", userId: a.user.id, tokenId: a.user.tokenId };
  if (a.automation) return { type: "automation", userId: a.user?.id ?? "", runId: a.automation.runId };
  return { type: "system" };
}

/** Where the change came from: an automation run's writes are `automation`, the Worker's own `room`, else `api`. */
export function defaultSource(ctx: ServiceContext): ChangeSource {
  const a = ctx.actor;
  if (a.type !== "system") return "api";
  return a.automation ? "automation" : "room";
}

type Statement = [text: string, params: unknown[]];

/** `CHANGE_LOG=off` writes no entries: only for `npm run bench -- changes`, which times writes with and without. */
export const changeLogOff = (env: { CHANGE_LOG?: string }) => env.CHANGE_LOG === "off";

/** The staging statements of `entries` (./staged.ts), each with its staged row's id. */
function stageStatements(
  ctx: ServiceContext,
  table: LoggedTable,
  head: unknown[],
  entries: readonly (readonly unknown[])[],
  guarded = false,
): [...Statement, string][] {
  const newId = ctx.ids.seriesBeside(table.id);
  return jsonArrayChunks(entries, CHUNK_BYTES).map((chunk) => {
    const id = newId();
    return [guarded ? STAGE_GUARDED_CELLS : STAGE_CELLS, [...head, chunk, id], id];
  });
}

function entryHead(ctx: ServiceContext, table: LoggedTable, source: ChangeSource, kind: string): unknown[] {
  return [ctx.now, kind, table.workspaceId, table.projectId, table.id, JSON.stringify(actorOf(ctx)), source];
}

function rowLogStatements(ctx: ServiceContext, table: LoggedTable, source: ChangeSource) {
  const head = (kind: string) => entryHead(ctx, table, source, kind);

  return {
    /**
     * After the insert: one `row.created` per inserted row, with every value given as `after`; from STAGE_FROM_ROWS
     * rows on staged (./staged.ts) and folded after the answer, `staged` told.
     */
    created(
      entries: readonly [string, Record<string, unknown>][],
      opts: { kind?: string; staged?: () => void } = {},
    ): Statement[] {
      if (!entries.length) return [];
      const kind = opts.kind ?? "row.created";
      const payload = entries.map(([id, values]) => [
        id,
        Object.fromEntries(
          Object.entries(values)
            .filter(([, v]) => v !== null && v !== undefined)
            .map(([c, v]) => [c, { before: null, after: v }]),
        ),
      ]);
      if (kind === "row.created" && entries.length >= STAGE_FROM_ROWS && opts.staged) {
        opts.staged();
        return [[STAGE_CREATED, [...head(kind), JSON.stringify(payload), ctx.ids.beside(table.id)]]];
      }
      return [[ROWS_WITH_CHANGES, [...head(kind), JSON.stringify(payload), 0]]];
    },
    /**
     * Before the cell upsert (`[cellId, rowId, columnId, isIdentifier, value]` entries): one `row.updated` per row
     * whose values change, built in the batch, or from STAGE_FROM_CELLS cells on staged (./staged.ts) and folded
     * after the answer. `staged` is told when it was.
     */
    cells(entries: readonly (readonly unknown[])[], staged?: () => void): Statement[] {
      if (entries.length < STAGE_FROM_CELLS)
        return jsonArrayChunks(entries, CHUNK_BYTES).map((chunk) => [CELL_CHANGES, [...head("row.updated"), chunk]]);
      staged?.();
      return stageStatements(ctx, table, head("row.updated"), entries).map(([text, params]) => [text, params]);
    },
    /** Before the update of `is_deleted`: `row.deleted` (or `row.restored`) for each row in the state it leaves. */
    state(rowIds: readonly string[], deleted: boolean): Statement[] {
      if (!rowIds.length) return [];
      const kind = deleted ? "row.deleted" : "row.restored";
      return [[ROW_STATE, [...head(kind), JSON.stringify(rowIds), deleted ? 0 : 1]]];
    },
  };
}

/**
 * A large cell write's entries, staged (./staged.ts): the staging statements, each with its staged row's id (the cell
 * upsert then takes its cells from that row: src/services/tables/queries.ts cellUpsertFromStagedStatement), to go
 * before the upsert; null when the log is off. The write folds them after its answer (foldAfterResponse).
 * `guarded`: the batch has already checked that every row named is a live row of the table (STAGE_GUARDED_CELLS).
 */
export function stagedCellLog(
  ctx: ServiceContext,
  d1: D1Database,
  table: LoggedTable,
  entries: readonly (readonly unknown[])[],
  opts: { guarded: boolean },
): { statement: D1PreparedStatement; id: string }[] | null {
  if (changeLogOff(ctx.env)) return null;
  const head = entryHead(ctx, table, defaultSource(ctx), "row.updated");
  return stageStatements(ctx, table, head, entries, opts.guarded).map(([text, params, id]) => ({
    statement: statement(d1, text, ...params),
    id,
  }));
}

type Built = ReturnType<typeof rowLogStatements>;
type As<T> = { [K in keyof Built]: (...args: Parameters<Built[K]>) => T[] };

/** The change-log statements of one write batch on `table`'s rows, as D1 statements. */
export function rowChangeLog(
  ctx: ServiceContext,
  d1: D1Database,
  table: LoggedTable,
  source = defaultSource(ctx),
): As<D1PreparedStatement> {
  const built = rowLogStatements(ctx, table, source);
  const off = changeLogOff(ctx.env);
  const to = (list: Statement[]) => (off ? [] : list.map(([text, params]) => statement(d1, text, ...params)));
  return {
    created: (...a) => to(built.created(...a)),
    cells: (...a) => to(built.cells(...a)),
    state: (...a) => to(built.state(...a)),
  };
}

/** recordEntryQuery for a record that names its own place: its id, workspace, project and table (a view, a comment). */
export function placedEntryQuery(
  ctx: ServiceContext,
  kind: string,
  record: { id: string; workspaceId: string; projectId: string; tableId: string | null },
  changes: CellChanges | null,
  exists: SQL,
) {
  const { id, workspaceId, projectId, tableId } = record;
  return recordEntryQuery(ctx, { kind, recordId: id, workspaceId, projectId, tableId, changes, exists });
}

/**
 * A record's entry as a Drizzle insert, for the Drizzle batches of the document and comment services: `changes`
 * known in full (a created record's fields, or a field's value as read and the new one), recorded only when `exists`
 * (SQL) holds where the entry sits in the batch (after an insert: it was inserted; before an update: the stored
 * value differs from the new one, so a write that changes nothing records nothing).
 */
export function recordEntryQuery(
  ctx: ServiceContext,
  entry: {
    kind: string;
    recordId: string;
    workspaceId: string;
    projectId: string;
    tableId?: string | null;
    changes: CellChanges | null;
    exists: SQL;
    /** By default the context's (`defaultSource`); an import's entries say `import`. */
    source?: ChangeSource;
  },
) {
  if (changeLogOff(ctx.env)) return [];
  const values = sql`SELECT ${sql.raw(NEXT_SEQ)} + 1, ${entry.recordId}, ${ctx.now},
    ${entry.kind}, (SELECT organization_id FROM workspaces WHERE id = ${entry.workspaceId}), ${entry.workspaceId},
    ${entry.projectId}, ${entry.tableId ?? null}, ${JSON.stringify(actorOf(ctx))}, ${entry.source ?? defaultSource(ctx)},
    ${entry.changes ? JSON.stringify(entry.changes) : null} WHERE ${entry.exists}`;
  return [ctx.db.insert(changeLog).select(values)];
}
