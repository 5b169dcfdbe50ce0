/** What the bulk writes of docs/api-guide.md › Bulk writes share: their first read, the all-or-nothing guard, the commit. */
import { statement } from "../../../db/d1";
import { and, eq } from "drizzle-orm";
import { rows } from "../../../db/schema";
import { ApiError } from "../../../errors";
import { inJson } from "../../../db/sql";
import { checkTableAccess, tableAccessStatement, type TableRoleAccess } from "../../../auth/tableAccess";
import { read, type ServiceContext } from "../../context";
import { liveColumnsQuery } from "../columns";
import type { ColumnRow, RowRow } from "../serialize";

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

/** The message of the guard's abort: see guardStatement. */
const STALE = "malformed JSON";

/**
 * The batch's first statement: it aborts the whole batch (nothing written) unless exactly `rowIds` are still rows of
 * the live table in the state the write expects (live, or deleted for a restore) — a delete (of a row or the
 * table) that committed between the read and the write makes the bulk write a 404, never a partial one. json() of a non-JSON text is SQLite's way of
 * raising an error from a plain statement.
 */
export function guardStatement(
  d1: D1Database,
  tableId: string,
  rowIds: readonly string[],
  deleted = false,
): D1PreparedStatement {
  return statement(
    d1,
    `SELECT json(CASE WHEN (SELECT COUNT(*) FROM rows WHERE table_id = ?1 AND is_deleted = ?2
        AND id IN (SELECT value FROM json_each(?3))) = ?4
        AND EXISTS (SELECT 1 FROM tables WHERE id = ?1 AND is_deleted = 0) THEN '1' ELSE 'stale' END) AS ok`,
    tableId,
    deleted ? 1 : 0,
    JSON.stringify(rowIds),
    new Set(rowIds).size,
  );
}

/** Runs the batch; the guard's abort is the 404 it stands for. */
export async function commitBatch(d1: D1Database, statements: D1PreparedStatement[]): Promise<D1Result[]> {
  try {
    return await d1.batch(statements);
  } catch (err) {
    if (err instanceof Error && err.message.includes(STALE)) throw new ApiError("NotFoundError", "Row not found");
    throw err;
  }
}
