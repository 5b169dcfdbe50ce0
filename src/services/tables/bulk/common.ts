/** What the bulk writes of docs/api-guide.md › Bulk writes share: their first read and the commit (the all-or-nothing guard is ../queries.ts guardStatement). */
import { d1Of } from "../../../db/d1";
import { and, eq } from "drizzle-orm";
import { rows } from "../../../db/schema";
import { ApiError } from "../../../errors";
import { inJson } from "../../../db/sql";
import { checkTableAccess, tableAccessStatement, type TableRoleAccess } from "../../../auth/tableAccess";
import { read, type ServiceContext } from "../../context";
import { liveColumnsQuery } from "../columns";
import type { ColumnRow, RowRow, TableRow } from "../serialize";
import { rowChangeLog, stagedCellLog } from "../../changes/log";
import { STAGE_FROM_CELLS } from "../../changes/staged";
import { cellUpsertFromStagedStatement, cellUpsertStatements, type CellEntry } from "../queries";

export const MAX_BULK_IDS = 1000;

/** 404 naming the ids (up to 50 in `details`) that are no row of the table the caller can see. */
export function rowsNotFound(missing: readonly string[], pathOf: (id: string) => string): ApiError {
  return new ApiError("NotFoundError", `Row not found: ${missing.slice(0, 3).join(", ")}`, {
    details: missing.slice(0, 50).map((id) => ({ path: pathOf(id), message: "no such row in this table" })),
  });
}

/**
 * Access, the live columns and the named rows of the table (`deleted`: soft-deleted ones, for a restore) in one
 * batch with authentication: 404 for an unreadable table, 403 for a readable one the caller may not write.
 */
export async function readForBulkWrite(
  ctx: ServiceContext,
  input: { tableId: string; rowIds: readonly string[]; deleted?: boolean },
) {
  const [[tableRow], columnList, found] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    ctx.db
      .select()
      .from(rows)
      .where(
        and(
          eq(rows.tableId, input.tableId),
          eq(rows.isDeleted, input.deleted ?? false),
          // A CSV import's staged rows are hidden, not deleted: no restore brings them out.
          ...(input.deleted ? [eq(rows.originId, "")] : []),
          inJson(rows.id, input.rowIds),
        ),
      ),
  ]);
  const readable = checkTableAccess(tableRow, "read");
  return { tableRow, table: readable.table, columns: columnList as ColumnRow[], found: found as RowRow[] };
}

/** After existence: the role (403 for a reader). */
export function assertWritable(tableRow: Parameters<typeof checkTableAccess>[0]): TableRoleAccess {
  return checkTableAccess(tableRow, "write");
}

/**
 * A bulk write's cell upserts with their change-log statements before them. From STAGE_FROM_CELLS cells the entries
 * are staged (../../changes/staged.ts) and each upsert takes its cells from its staged row, so the JSON is sent once;
 * `staged` is then true, and the write folds them after its answer (foldAfterResponse).
 */
export function loggedCellUpserts(
  ctx: ServiceContext,
  d1: D1Database,
  table: TableRow,
  entries: readonly CellEntry[],
): { statements: D1PreparedStatement[]; staged: boolean } {
  // Guarded: both callers put guardStatement before these statements in their batch.
  const staged = entries.length >= STAGE_FROM_CELLS ? stagedCellLog(ctx, d1, table, entries, { guarded: true }) : null;
  if (!staged)
    return {
      statements: [
        ...rowChangeLog(ctx, d1, table).cells(entries),
        ...cellUpsertStatements(d1, table, ctx.now, entries),
      ],
      staged: false,
    };
  return {
    statements: staged.flatMap((s) => [s.statement, cellUpsertFromStagedStatement(d1, table, ctx.now, s.id)]),
    staged: true,
  };
}

/** The message of the guard's abort: see guardStatement. */
const STALE = "malformed JSON";

/** Runs the batch; the guard's abort is the 404 it stands for. */
export async function commitBatch(ctx: ServiceContext, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await d1Of(ctx.db).batch(statements);
  } catch (err) {
    if (err instanceof Error && err.message.includes(STALE)) throw new ApiError("NotFoundError", "Row not found");
    throw err;
  }
}
