/**
 * POST /table/{tableId}/rows/upsert (docs/api-guide.md › Bulk writes): each input row whose key cells equal one live
 * row's updates it, else a row is created; all or nothing, one write batch, formulas recomputed once.
 * Round trips: access and columns (with authentication), the rows holding the keys, the write.
 */
import { ApiError, validation, type ErrorDetail } from "../../../errors";
import { d1Of } from "../../../db/d1";
import { rawSelect } from "../../../db/sql";
import { sql } from "drizzle-orm";
import { checkTableAccess, tableAccessStatement } from "../../../auth/tableAccess";
import { read, type ServiceContext } from "../../context";
import { keptAnswerStatements } from "../../idempotency";
import { emitAfterResponse, rowEvent } from "../../events/events";
import { checkCellWrites, isComputedColumn } from "../cellValues";
import { liveColumnsQuery } from "../columns";
import { computeNeeded, computeNeededStatement, recalculateFormulasAfterWrite } from "../recompute";
import { rowDto, type ColumnRow, type RowRow } from "../serialize";
import { resolveSelectLabels } from "./labels";
import { rowChangeLog } from "../../changes/log";
import { foldAfterResponse } from "../../changes/staged";
import { commitBatch, loggedCellUpserts } from "./common";
import { rowInsertStatements, guardStatement, touchRowsStatement, type CellEntry } from "../queries";

/**
 * Cells of the key columns in live rows whose first key cell holds one of the given values (`?4`, JSON texts) or
 * the id of a select item labelled with one of them (`?5`): it rides in the first batch, before the columns are
 * known, so labels are mapped here.
 */
/** A value as JSON text; a value nested too deep to write matches nothing (its row is refused with 400 later). */
function jsonText(v: unknown): string {
  try {
    return JSON.stringify(v ?? null);
  } catch {
    return "null";
  }
}

const keyCells = (tableId: string, keyColumnIds: readonly string[], firstValues: readonly unknown[]) => sql`
  SELECT c.row_id AS rowId, c.column_id AS columnId, c.data AS data, r.owner_id AS ownerId,
    r.created_at AS createdAt, r.origin_id AS originId
  FROM cells c JOIN rows r ON r.id = c.row_id
  WHERE c.table_id = ${tableId} AND c.is_deleted = 0 AND c.column_id IN (SELECT value FROM json_each(${JSON.stringify(keyColumnIds)}))
    AND c.row_id IN (SELECT k.row_id FROM cells k JOIN rows kr ON kr.id = k.row_id AND kr.table_id = ${tableId} AND kr.is_deleted = 0
      WHERE k.column_id = ${keyColumnIds[0]} AND k.is_deleted = 0
        AND (k.data IN (SELECT value FROM json_each(${JSON.stringify(firstValues.map(jsonText))}))
          OR k.data IN (SELECT json_quote(si.value ->> '$.id') FROM columns kc, json_each(kc.data, '$.selectItems') si
            WHERE kc.id = ${keyColumnIds[0]} AND si.value ->> '$.label' IN (SELECT value FROM json_each(${JSON.stringify(firstValues.filter((v) => typeof v === "string"))})))))`;

interface KeyCell {
  rowId: string;
  columnId: string;
  data: string | null;
  ownerId: string;
  createdAt: number;
  originId: string;
}

const keyOf = (values: unknown[]) => JSON.stringify(values);

/** 400 unless every key column is a writable column of the table and every row gives each key a value, once. */
function checkKeys(keyColumnIds: readonly string[], byId: Map<string, ColumnRow>, inputs: Record<string, unknown>[]) {
  const details: ErrorDetail[] = [];
  keyColumnIds.forEach((id, i) => {
    const column = byId.get(id);
    if (!column) details.push({ path: `keyColumnIds.${i}`, message: "no such column in this table" });
    else if (isComputedColumn(column) || column.data.type === "multiSelect")
      details.push({ path: `keyColumnIds.${i}`, message: `a ${column.data.type} column cannot be a key` });
  });
  if (new Set(keyColumnIds).size !== keyColumnIds.length)
    details.push({ path: "keyColumnIds", message: "a column appears more than once" });
  if (details.length) throw validation("Invalid keyColumnIds", details);
  const firstAt = new Map<string, number>();
  const keys = inputs.map((cells, i) => {
    const values = keyColumnIds.map((id) => cells[id] ?? null);
    const blank = keyColumnIds.find((id) => (cells[id] ?? null) === null);
    if (blank) details.push({ path: `rows.${i}.cells.${blank}`, message: "every row gives each key column a value" });
    const key = keyOf(values);
    const first = firstAt.get(key);
    if (first !== undefined && !blank) details.push({ path: `rows.${i}`, message: `the same key as rows.${first}` });
    firstAt.set(key, first ?? i);
    return key;
  });
  if (details.length) throw validation("Invalid upsert rows", details.slice(0, 50));
  return keys;
}

/** Existing live rows by key (from the key cells the first batch read); 409 naming the rows when one key matches several. */
function matchExisting(results: readonly KeyCell[], keyColumnIds: string[], keys: string[]) {
  const byRow = new Map<string, { cells: Map<string, unknown>; row: KeyCell }>();
  for (const c of results) {
    const entry = byRow.get(c.rowId) ?? { cells: new Map(), row: c };
    entry.cells.set(c.columnId, c.data === null ? null : JSON.parse(c.data));
    byRow.set(c.rowId, entry);
  }
  const byKey = new Map<string, { rowIds: string[]; row: KeyCell }>();
  for (const [rowId, { cells, row }] of byRow) {
    const key = keyOf(keyColumnIds.map((id) => cells.get(id) ?? null));
    const m = byKey.get(key) ?? { rowIds: [], row };
    m.rowIds.push(rowId);
    byKey.set(key, m);
  }
  const ambiguous = keys.flatMap((k, i) => {
    const ids = byKey.get(k)?.rowIds ?? [];
    return ids.length > 1 ? [{ path: `rows.${i}`, message: `the key matches rows ${ids.join(", ")}` }] : [];
  });
  if (ambiguous.length)
    throw new ApiError("ConflictError", `A key matches several rows: ${ambiguous[0]!.message}`, {
      details: ambiguous.slice(0, 50),
    });
  return keys.map((k) => byKey.get(k)?.row);
}

// eslint-disable-next-line max-lines-per-function -- one read, one match, one batch: the steps read in order
export async function upsertRows(
  ctx: ServiceContext,
  input: { tableId: string; keyColumnIds: string[]; rows: readonly { cells?: Record<string, unknown> }[] },
) {
  const first = input.keyColumnIds[0]!;
  const [[tableRow], columnList, keyCellRows] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    rawSelect<KeyCell>(
      ctx.db,
      ["rowId", "columnId", "data", "ownerId", "createdAt", "originId"],
      keyCells(
        input.tableId,
        input.keyColumnIds,
        input.rows.map((r) => r.cells?.[first]),
      ),
    ),
  ]);
  const { table } = checkTableAccess(tableRow, "write");
  const byId = new Map(columnList.map((c) => [c.id, c]));
  const inputs = resolveSelectLabels(
    byId,
    input.rows.map((r) => r.cells ?? {}),
  );
  // The values first: a key is compared as JSON, so it must be a value a cell can hold.
  checkCellWrites(byId, inputs, (i) => `rows.${i}.cells`);
  const keys = checkKeys(input.keyColumnIds, byId, inputs);
  const matched = matchExisting(keyCellRows, input.keyColumnIds, keys);
  const t = ctx.now;
  const newId = ctx.ids.seriesBeside(table.id);
  const rowsOut: RowRow[] = matched.map((m) => ({
    id: m ? m.rowId : newId(),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    ownerId: m ? m.ownerId : ctx.user.id,
    originId: m ? m.originId : "",
    seq: 0,
    isDeleted: false,
    createdAt: m ? m.createdAt : t,
    updatedAt: t,
  }));
  const created = rowsOut.filter((_, i) => !matched[i]);
  const updated = rowsOut.filter((_, i) => matched[i]);
  const entries = (which: "new" | "old") =>
    rowsOut.flatMap((row, i) =>
      (which === "new") === !matched[i]
        ? Object.entries(inputs[i]!)
            .filter(([, v]) => which === "old" || v !== null)
            .map(([columnId, v]): CellEntry => [newId(), row.id, columnId, byId.get(columnId)!.isIdentifier ? 1 : 0, v])
        : [],
    );
  const answer = rowsOut.map((r, i) => ({ ...rowDto(r), cells: { ...inputs[i] } }));
  const data = { created: created.map((r) => r.id), updated: updated.map((r) => r.id), rows: answer };
  const d1 = d1Of(ctx.db);
  const updatedIds = updated.map((r) => r.id);
  const cellWrites = loggedCellUpserts(ctx, d1, table, entries("old"));
  let createdStaged = false;
  const results = await commitBatch(ctx, [
    touchRowsStatement(d1, table.id, t, updatedIds),
    guardStatement(d1, table.id, updatedIds.length),
    ...cellWrites.statements,
    ...(created.length
      ? rowInsertStatements(
          d1,
          table,
          ctx.user.id,
          t,
          created.map((r) => r.id),
          entries("new"),
        )
      : []),
    ...rowChangeLog(ctx, d1, table).created(
      created.map((r) => [r.id, inputs[rowsOut.indexOf(r)]!]),
      { staged: () => (createdStaged = true) },
    ),
    ...(await keptAnswerStatements(ctx, { d1, payload: { data } })),
    computeNeededStatement(d1, table.id, t),
  ]);
  const computed = await recalculateFormulasAfterWrite(
    ctx.env,
    table.id,
    rowsOut.map((r) => r.id),
    { needed: computeNeeded(results.at(-1)) },
  );
  emitAfterResponse(
    ctx,
    rowsOut.map((r, i) =>
      rowEvent(matched[i] ? "row.updated" : "row.created", table, r.id, Object.keys(inputs[i] ?? {})),
    ),
  );
  for (const a of answer) Object.assign(a.cells, computed.formulaCells[a._id] ?? {});
  // Last, so the fold's D1 work does not hold the recomputation's reads behind it.
  if (cellWrites.staged || createdStaged) foldAfterResponse(ctx, d1);
  return { table, data };
}
