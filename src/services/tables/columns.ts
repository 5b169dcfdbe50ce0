/**
 * Columns: derived slugs (./columnSlugs.ts), type options that reference other records, and the identifier column's rules (docs/api-guide.md › Tables, columns, rows, cells);
 * the checks a write runs before it writes are in ./columnChecks.ts.
 * Every operation loads access, the column (or table) and what its checks need — oneMany targets, taken slugs, the
 * column list its If-Match is compared with — in one D1 batch (`read`), then writes once.
 */
import { and, asc, eq, sql, type SQL } from "drizzle-orm";
import { columns } from "../../db/schema";
import type { Db } from "../../env";
import { conflict, notFound, preconditionFailed, unprocessable } from "../../errors";
import type { ExpectedVersion } from "../../lib/etag";
import { nextUpdatedAt } from "../../db/sql";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import type { ColumnDataInput } from "../../schemas/tables";
import { read, type ServiceContext, type IdIssuer } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { applyFormulaThroughCoordinator, recomputeLookupsThroughCoordinator } from "../formula/coordinator";
import { linkedColumnsOf, linkedColumnsQuery, type LinkedColumns } from "./linked";
import { recalculateLookupsReading } from "./recompute";
import { MAX_FORMULA_DEPTH, type DescriptionItem, type Expr, type ParsedExpression } from "../formula/expression";
import { compileFormulaText, locateTreeProblems } from "../formula/formulaText";
import { printFormula } from "../formula/print";
import { asTableColumn, columnDto, type ColumnRow, type TableRow } from "./serialize";
import { slugify, takenSlugsQuery, withFreeSlug } from "./columnSlugs";
import { columnCreatedEntry, columnDeletedEntry, columnUpdatedEntry } from "./changeLog";
import type { BatchItem } from "drizzle-orm/batch";
import type { ChangeSource } from "../../db/schema/changes";
import {
  assertColumnIfMatch,
  checkOneManyReferences,
  columnAfterWrite,
  compileColumnFormula,
  oneManyStatements,
  storedData,
  type CompiledColumnFormula,
} from "./columnChecks";

export type ColumnDto = ReturnType<typeof columnDto>;

/** liveColumns as a query builder, to run inside a batch; `tableId` may be SQL (a subquery in the same batch). */
export function liveColumnsQuery(db: Db, tableId: string | SQL) {
  return db
    .select()
    .from(columns)
    .where(and(eq(columns.tableId, tableId), eq(columns.isDeleted, false)))
    .orderBy(asc(columns.id));
}

/** The live column by id, for a batch (empty when missing or deleted). */
function liveColumnQuery(db: Db, columnId: string) {
  return db
    .select()
    .from(columns)
    .where(and(eq(columns.id, columnId), eq(columns.isDeleted, false)));
}

export interface NewColumn {
  name: string;
  description?: string;
  data: ColumnDataInput;
}

/** The identifier column every table starts with (docs/api-guide.md › Tables, columns, rows, cells), to insert with the table. */
export function identifierColumnRow(table: TableRow, ids: IdIssuer): ColumnRow {
  return {
    id: ids.beside(table.id),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    name: "Name",
    slug: "name",
    originId: "",
    description: "",
    isIdentifier: true,
    data: { type: "identifier" },
    formula: null,
    isDeleted: false,
    createdAt: table.createdAt,
    updatedAt: table.createdAt,
  };
}

/** E11: the table's live columns in creation order, with project read access (else 404). One round trip. */
export async function listColumns(ctx: ServiceContext, { tableId }: { tableId: string }): Promise<ColumnDto[]> {
  const [[table], list, linkedRows] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, tableId),
    liveColumnsQuery(ctx.db, tableId),
    linkedColumnsQuery(ctx.db, tableId),
  ]);
  checkTableAccess(table, "read");
  const linked = linkedColumnsOf(list, linkedRows);
  return list.map((c) => columnDto(c, list, linked));
}

/** Adds a column. A table has exactly one identifier column, made with the table; another is 409. */
export async function createColumn(
  ctx: ServiceContext,
  input: NewColumn & { tableId: string; changeSource?: ChangeSource },
): Promise<ColumnDto> {
  const [[tableRow], targets, cols, taken, list, linkedRows] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    ...oneManyStatements(ctx.db, input.data),
    takenSlugsQuery(ctx.db, input.tableId, slugify(input.name)),
    liveColumnsQuery(ctx.db, input.tableId),
    linkedColumnsQuery(ctx.db, input.tableId),
  ]);
  const linked = linkedColumnsOf(list, linkedRows);
  const { table } = checkTableAccess(tableRow, "write");
  if (input.data.type === "identifier")
    throw conflict("The table already has its identifier column; a table has exactly one");
  checkOneManyReferences(table, input.data, [targets, cols]);
  const columnId = ctx.ids.beside(table.id);
  const data = storedData(input.data);
  // The new column is among the columns its formula may name, so naming itself is a cycle, not an unknown name.
  const formula =
    input.data.type === "formula" && input.data.formula
      ? compileColumnFormula(
          input.data.formula,
          columnId,
          [
            ...list.map(asTableColumn),
            columnAfterWrite({ id: columnId, name: input.name, isIdentifier: false, isDeleted: false }, data),
          ],
          linked,
        )
      : null;
  const row = await withFreeSlug(ctx, { tableId: table.id, name: input.name, taken }, async (slug) => {
    const made: ColumnRow = {
      id: columnId,
      tableId: table.id,
      projectId: table.projectId,
      workspaceId: table.workspaceId,
      name: input.name,
      slug,
      originId: "",
      description: input.description ?? "",
      isIdentifier: false,
      data,
      formula: null,
      isDeleted: false,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    // A keyed request's answer commits with the column (services/idempotency.ts): a crash cannot part them. For a
    // formula column it is the column with its formula, as applyColumnFormula answers when the formula is applied.
    const answer = formula ? withFormula(made, formula, list, linked) : columnDto(made, list, linked);
    await ctx.db.batch([
      ctx.db.insert(columns).values(made),
      ...columnCreatedEntry(ctx, made, input.changeSource),
      ...(await keptAnswerUpdates(ctx, { payload: { data: answer } })),
    ]);
    return made;
  });
  if (!formula) return columnDto(row, list, linked);
  return applyColumnFormula(ctx, table.id, row, formula, list, linked);
}

/** Persists and computes a column write's formula through the table's coordinator (as E3 does), then reads the column back. */
async function applyColumnFormula(
  ctx: ServiceContext,
  tableId: string,
  row: ColumnRow,
  formula: CompiledColumnFormula,
  list: readonly ColumnRow[],
  linked: LinkedColumns,
): Promise<ColumnDto> {
  await applyFormulaThroughCoordinator(ctx.env, {
    tableId,
    columnId: row.id,
    description: formula.description,
    expression: formula.expression,
  });
  const [stored] = await liveColumnQuery(ctx.db, row.id);
  return stored
    ? columnDto(stored, [...list.filter((c) => c.id !== row.id), stored], linked)
    : withFormula(row, formula, list, linked);
}

/** A column's answer with its formula applied (what applyColumnFormula answers when the column is not read back). */
function withFormula(
  row: ColumnRow,
  formula: CompiledColumnFormula,
  list: readonly ColumnRow[],
  linked: LinkedColumns,
): ColumnDto {
  const after = { ...row, formula };
  return columnDto(after, [...list.filter((c) => c.id !== row.id), after], linked);
}

export interface ColumnPatch {
  name?: string;
  description?: string;
  data?: ColumnDataInput;
}

/** The statements reaching a column's table and its list from the column id alone (one batch with the column). */
const tableOfColumn = (columnId: string) => sql`(SELECT table_id FROM columns WHERE id = ${columnId})`;

/**
 * Renaming re-derives the slug. `data` replaces the options whole. Changing the type is allowed except to or from
 * `identifier` (409); existing cells keep their stored values and reads return them as stored. Leaving `formula`
 * drops the persisted formula. If-Match: see assertColumnIfMatch.
 */
export async function updateColumn(
  ctx: ServiceContext,
  input: { columnId: string; patch: ColumnPatch; expected?: ExpectedVersion },
): Promise<ColumnDto> {
  const { columnId, patch } = input;
  const [[column], [tableRow], list, targets, cols, taken, linkedRows] = await read(ctx, [
    liveColumnQuery(ctx.db, columnId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfColumn(columnId)),
    liveColumnsQuery(ctx.db, tableOfColumn(columnId)),
    ...oneManyStatements(ctx.db, patch.data),
    takenSlugsQuery(ctx.db, tableOfColumn(columnId), slugify(patch.name ?? ""), columnId),
    linkedColumnsQuery(ctx.db, tableOfColumn(columnId)),
  ]);
  const linked = linkedColumnsOf(list, linkedRows);
  if (!column) throw notFound("Column");
  const { table } = checkTableAccess(tableRow, "write", { as: "Column" });
  await assertColumnIfMatch(input.expected, column, list);
  if (patch.data) {
    if (column.isIdentifier && patch.data.type !== "identifier")
      throw conflict("The identifier column keeps type identifier");
    if (!column.isIdentifier && patch.data.type === "identifier")
      throw conflict("The table already has its identifier column; a table has exactly one");
    checkOneManyReferences(table, patch.data, [targets, cols]);
  }
  const data = patch.data ? storedData(patch.data) : undefined;
  const formula =
    patch.data?.type === "formula" && patch.data.formula
      ? compileColumnFormula(
          patch.data.formula,
          column.id,
          [
            ...list.filter((c) => c.id !== column.id).map(asTableColumn),
            columnAfterWrite(
              { id: column.id, name: patch.name ?? column.name, isIdentifier: column.isIdentifier, isDeleted: false },
              data!,
            ),
          ],
          linked,
        )
      : null;
  const row = await writeColumnPatch(ctx, { column, patch, data, expected: input.expected, tableId: table.id, taken });
  const others = list.filter((c) => c.id !== row.id);
  // Sending back the formula a column already has (a client returning what it read) recomputes nothing.
  const unchanged =
    formula &&
    column.data.type === "formula" &&
    JSON.stringify(column.formula?.expression) === JSON.stringify(formula.expression);
  // A relation whose filter (or type) changed: the lookups through it are recomputed before the answer.
  if (column.data.type === "oneMany" && patch.data && JSON.stringify(patch.data) !== JSON.stringify(column.data)) {
    await recomputeLookupsThroughCoordinator(ctx.env, { tableId: table.id, relationId: column.id });
  }
  // Lookups in other tables that read this column see its new options (a select's labels, a type change).
  if (patch.data && !formula) await recalculateLookupsReading(ctx.env, table.id);
  if (!formula || unchanged) return columnDto(row, [...others, row], linked);
  return applyColumnFormula(ctx, table.id, row, formula, others, linked);
}

/** Writes a column's patch; a rename takes a slug free in the table. */
async function writeColumnPatch(
  ctx: ServiceContext,
  input: {
    column: ColumnRow;
    patch: ColumnPatch;
    data: ColumnRow["data"] | undefined;
    expected: ExpectedVersion | undefined;
    tableId: string;
    taken: readonly { slug: string }[];
  },
): Promise<ColumnRow> {
  const { column, patch, data, expected, tableId, taken } = input;
  const set = {
    ...(patch.description !== undefined && { description: patch.description }),
    ...(data && { data }),
    ...(patch.data && patch.data.type !== "formula" && { formula: null }),
    updatedAt: nextUpdatedAt(columns.updatedAt, ctx.now),
  };
  // With If-Match, a compare-and-set on the column as checked: a concurrent write in between makes this a 412.
  const where = columnCasWhere(column, expected);
  const write = async (slug?: string) => {
    const named = slug !== undefined ? { name: patch.name!, slug } : {};
    const log = columnUpdatedEntry(ctx, column, { ...named, description: patch.description, data }, where);
    const results = await ctx.db.batch([
      ...log,
      ctx.db
        .update(columns)
        .set({ ...set, ...named })
        .where(where)
        .returning(),
    ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    const [row] = results[log.length] as ColumnRow[];
    if (!row) throw preconditionFailed();
    return row;
  };
  return patch.name !== undefined && patch.name !== column.name
    ? withFreeSlug(ctx, { tableId, name: patch.name, taken, exceptColumnId: column.id }, write)
    : write();
}

/** The column as checked; with If-Match, also unchanged since (a compare-and-set: a concurrent write makes it a 412). */
const columnCasWhere = (column: ColumnRow, expected: ExpectedVersion | undefined) =>
  and(eq(columns.id, column.id), expected === undefined ? undefined : eq(columns.updatedAt, column.updatedAt))!;

/** Soft-deletes a column (its cells vanish); the identifier column cannot be deleted (409). If-Match as for update. */
export async function deleteColumn(
  ctx: ServiceContext,
  input: { columnId: string; expected?: ExpectedVersion },
): Promise<void> {
  const [[column], [tableRow], list] = await read(ctx, [
    liveColumnQuery(ctx.db, input.columnId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfColumn(input.columnId)),
    liveColumnsQuery(ctx.db, tableOfColumn(input.columnId)),
  ]);
  if (!column) throw notFound("Column");
  const { table } = checkTableAccess(tableRow, "write", { as: "Column" });
  await assertColumnIfMatch(input.expected, column, list);
  if (column.isIdentifier) throw conflict("The identifier column cannot be deleted");
  const where = columnCasWhere(column, input.expected);
  const log = columnDeletedEntry(ctx, column, where);
  const results = await ctx.db.batch([
    ...log,
    ctx.db
      .update(columns)
      .set({ isDeleted: true, updatedAt: nextUpdatedAt(columns.updatedAt, ctx.now) })
      .where(where)
      .returning({ id: columns.id }),
  ] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  if ((results[log.length] as unknown[]).length === 0) throw preconditionFailed();
  // A lookup of the deleted column (or through a relation filtering on it) is recomputed: it reads #REF! or fewer rows now.
  await recalculateLookupsReading(ctx.env, table.id);
}

/**
 * E3: the column (live, of a table the caller may write) is checked in one batch with authentication's access;
 * validation, persistence and computation run in the table's formula coordinator (its own D1 work). Without
 * `text` or `expression`, the column's stored formula is applied again (422 when it has none).
 */
export async function applyComputedColumn(
  ctx: ServiceContext,
  input: { columnId: string; description?: DescriptionItem[]; expression?: ParsedExpression; text?: string },
): Promise<{ updatedRows: number }> {
  const [[column], [tableRow], list, linkedRows] = await read(ctx, [
    liveColumnQuery(ctx.db, input.columnId),
    tableAccessStatement(ctx.db, ctx.user.ref, tableOfColumn(input.columnId)),
    liveColumnsQuery(ctx.db, tableOfColumn(input.columnId)),
    linkedColumnsQuery(ctx.db, tableOfColumn(input.columnId)),
  ]);
  if (!column) throw notFound("Column");
  const { table } = checkTableAccess(tableRow, "write", { as: "Column" });
  const reapply = input.text === undefined && input.expression === undefined;
  if (reapply && !column.formula) throw unprocessable("The column has no formula to apply");
  const linked = linkedColumnsOf(list, linkedRows);
  if (column.isIdentifier || column.data.type === "identifier")
    throw conflict("The identifier column cannot become a formula column");
  let expression: Expr;
  let description: DescriptionItem[];
  if (reapply) {
    // Neither form given (an automation's formula.apply): the column's stored formula, computed again.
    expression = column.formula!.expression as Expr;
    description = input.description ?? (column.formula!.description as DescriptionItem[]);
  } else if (input.text !== undefined) {
    // The typed form: parsed here, where the column names are at hand; the coordinator validates the tree again.
    const compiled = compileFormulaText(input.text, list.map(asTableColumn), {
      columnId: column.id,
      path: "text",
      linked,
    });
    expression = compiled.expression;
    description = input.description ?? compiled.description;
  } else {
    const parsed = input.expression!;
    if (parsed.tooDeep) {
      throw unprocessable(`The formula nests more than ${MAX_FORMULA_DEPTH} levels deep`, [
        { path: "expression", message: `deeper than ${MAX_FORMULA_DEPTH} levels` },
      ]);
    }
    expression = parsed.expr;
    description = input.description ?? printFormula(expression, list.map(asTableColumn), { linked }).description;
  }
  try {
    const result = await applyFormulaThroughCoordinator(ctx.env, {
      tableId: table.id,
      columnId: column.id,
      description,
      expression,
    });
    return { updatedRows: result.updatedRows };
  } catch (err) {
    // The coordinator validates; its problems get their place in the formula's canonical text.
    throw locateTreeProblems(err, expression, list.map(asTableColumn), linked);
  }
}
