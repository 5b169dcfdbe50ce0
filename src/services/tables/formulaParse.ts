/**
 * `POST /formula/parse` (docs/api-guide.md, Formulas as text): what a typed formula means for a table, without
 * writing anything — its tree, canonical text, the columns it reads and its result type, or 422 with the line
 * and column of each problem. One D1 round trip: access and the table's columns in one batch.
 */
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { notFound } from "../../errors";
import type { Expr } from "../formula/expression";
import { compileFormulaText } from "../formula/formulaText";
import type { ResultType } from "../formula/resultType";
import { read, type ServiceContext } from "../context";
import { liveColumnsQuery } from "./columns";
import { asTableColumn } from "./serialize";
import { linkedColumnsOf, linkedColumnsQuery } from "./linked";

export interface ParsedFormulaDto {
  tree: Expr;
  text: string;
  references: string[];
  resultType: ResultType;
}

/** Parses `text` against the table's live columns; with `columnId` (a column of the table), cycles through it are 422 too. */
export async function parseFormulaForTable(
  ctx: ServiceContext,
  input: { tableId: string; text: string; columnId?: string },
): Promise<ParsedFormulaDto> {
  const [[tableRow], list, linkedRows] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
    linkedColumnsQuery(ctx.db, input.tableId),
  ]);
  checkTableAccess(tableRow, "read");
  if (input.columnId !== undefined && !list.some((c) => c.id === input.columnId)) throw notFound("Column");
  const compiled = compileFormulaText(input.text, list.map(asTableColumn), {
    columnId: input.columnId,
    path: "text",
    linked: linkedColumnsOf(list, linkedRows),
  });
  return {
    tree: compiled.expression,
    text: compiled.text,
    references: compiled.references,
    resultType: compiled.resultType,
  };
}
