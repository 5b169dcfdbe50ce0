/**
 * The checks a column write runs before it writes (docs/api-guide.md › Tables, columns, rows, cells): If-Match on a
 * column, a oneMany column's references, the stored form of `data`, and a formula given with the write compiled
 * against its table. The operations that run them are in ./columns.ts.
 */
import { and, eq } from "drizzle-orm";
import { columns, tables } from "../../db/schema";
import type { Db } from "../../env";
import { preconditionFailed, unprocessable, validation, type ErrorDetail } from "../../errors";
import { etagOf, versionMatches, type ExpectedVersion } from "../../lib/etag";
import { inJson } from "../../db/sql";
import type { ColumnDataInput, FormulaInput } from "../../schemas/tables";
import type { LinkedColumns } from "./linked";
import { MAX_FORMULA_DEPTH, type DescriptionItem, type Expr } from "../formula/expression";
import { compileFormulaText, validateTree } from "../formula/formulaText";
import type { TableColumn } from "../formula/graph";
import { printFormula } from "../formula/print";
import { columnDto, type ColumnRow, type TableRow } from "./serialize";

/** The body E11 answers with: its ETag, and one of the two an If-Match on a column may name (see columnIfMatch). */
export const columnListRepresentation = (list: readonly ColumnRow[]) => ({ data: list.map((c) => columnDto(c, list)) });

/**
 * If-Match on PATCH/DELETE of a column (docs/api-guide.md › HTTP semantics: retries, caching, replicas): the column's GET is E11, so the column list's ETag is accepted;
 * so is the ETag of the column's own `{ data: column }` (what POST/PATCH column answer with, and their ETag header).
 * Anything else — or a column already changed — is 412.
 */
export async function assertColumnIfMatch(
  expected: ExpectedVersion | undefined,
  column: ColumnRow,
  list: readonly ColumnRow[],
) {
  if (expected === undefined) return;
  const tags = await Promise.all([etagOf(columnListRepresentation(list)), etagOf({ data: columnDto(column, list) })]);
  if (!tags.some((t) => versionMatches(expected, t))) throw preconditionFailed();
}

/** What a oneMany check needs, for the same batch as the access check (empty reads when `data` is not oneMany). */
export function oneManyStatements(db: Db, data: ColumnDataInput | undefined) {
  const oneMany = data?.type === "oneMany" ? data.oneMany : null;
  const ids = oneMany
    ? [
        ...new Set([
          ...oneMany.filter.map((f) => f.targetColumnId),
          ...oneMany.filter.flatMap((f) => (f.sourceColumnId ? [f.sourceColumnId] : [])),
        ]),
      ]
    : [];
  return [
    db
      .select({ id: tables.id, projectId: tables.projectId, isDeleted: tables.isDeleted })
      .from(tables)
      .where(eq(tables.id, oneMany?.tableId ?? "")),
    db
      .select({ id: columns.id, tableId: columns.tableId, data: columns.data })
      .from(columns)
      .where(and(eq(columns.isDeleted, false), inJson(columns.id, ids))),
  ] as const;
}

/**
 * A oneMany column's references must resolve: the target a live table of the same project, each
 * `targetColumnId` a live column of the target and each `sourceColumnId` a live column of this table — neither a
 * oneMany column (relations of relations are not computed). 400 with a detail per problem.
 */
export function checkOneManyReferences(
  table: TableRow,
  data: ColumnDataInput | undefined,
  [targets, cols]: [
    { id: string; projectId: string; isDeleted: boolean }[],
    { id: string; tableId: string; data: ColumnRow["data"] }[],
  ],
) {
  if (data?.type !== "oneMany") return;
  const { tableId: targetId, filter } = data.oneMany;
  const target = targets[0];
  if (!target || target.isDeleted || target.projectId !== table.projectId) {
    throw validation("oneMany.tableId must be a table of the same project", [
      { path: "data.oneMany.tableId", message: "no such table in this project" },
    ]);
  }
  const details: ErrorDetail[] = [];
  const byId = new Map(cols.map((c) => [c.id, c]));
  const check = (columnId: string, tableId: string, path: string, what: string) => {
    const c = byId.get(columnId);
    if (!c || c.tableId !== tableId) details.push({ path, message: `not a column of the ${what} table` });
    else if (c.data.type === "oneMany") details.push({ path, message: "a oneMany column cannot be compared" });
  };
  filter.forEach((item, i) => {
    check(item.targetColumnId, targetId, `data.oneMany.filter.${i}.targetColumnId`, "target");
    if (item.sourceColumnId) check(item.sourceColumnId, table.id, `data.oneMany.filter.${i}.sourceColumnId`, "source");
  });
  if (details.length)
    throw validation(`Invalid oneMany filter: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`, details);
}

/** The stored form of `data`: what the client sent, with defaults zod filled in; a formula is kept on the column, not in `data`. */
export function storedData(data: ColumnDataInput): ColumnRow["data"] {
  if (data.type === "formula") {
    const { formula: _formula, ...rest } = data;
    return rest as ColumnRow["data"];
  }
  return data as ColumnRow["data"];
}

export interface CompiledColumnFormula {
  expression: Expr;
  description: DescriptionItem[];
}

/**
 * A formula given with a column write, checked against its table (`columns`, the column itself among them):
 * text is parsed (422 with line, column and suggestions), a tree is validated as E3 validates it.
 */
export function compileColumnFormula(
  formula: FormulaInput,
  columnId: string,
  columns: readonly TableColumn[],
  linked: LinkedColumns,
): CompiledColumnFormula {
  if (formula.text !== undefined) {
    const compiled = compileFormulaText(formula.text, columns, { columnId, path: "data.formula.text", linked });
    return { expression: compiled.expression, description: compiled.description };
  }
  const parsed = formula.expression!;
  if (parsed.tooDeep) {
    throw unprocessable(`The formula nests more than ${MAX_FORMULA_DEPTH} levels deep`, [
      { path: "data.formula.expression", message: `deeper than ${MAX_FORMULA_DEPTH} levels` },
    ]);
  }
  const expression = validateTree(
    { columnId, expression: parsed, description: formula.description ?? [] },
    columns,
    linked,
  );
  return { expression, description: formula.description ?? printFormula(expression, columns, { linked }).description };
}

/** The column as the formula checks see it, with the type and name a write gives it. */
export function columnAfterWrite(
  base: Omit<TableColumn, "type" | "data" | "formula">,
  data: ColumnRow["data"],
): TableColumn {
  return { ...base, type: data.type, data, formula: null };
}
