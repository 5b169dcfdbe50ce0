/**
 * Formulas as people type them, against a table: text → checked tree (with 422 details a person can act on:
 * line, column, message, suggestions), and any stored tree → its text and result type for the column record.
 */
import { ApiError, unprocessable, type ErrorDetail } from "../../errors";
import {
  MAX_FORMULA_DEPTH,
  MAX_FORMULA_NODES,
  MAX_FORMULA_TEXT,
  measureTree,
  type DescriptionItem,
  type Expr,
  type ParsedExpression,
} from "./expression";
import { validateFormula } from "./validate";
import { findCycle, formulaTrees, type TableColumn } from "./graph";
import { printFormula } from "./print";
import { inferResultType, type ResultType } from "./resultType";
import { FormulaSyntaxError, positionAt, type FormulaProblem } from "./syntaxErrors";
import { parseFormula } from "./resolve";
import { lookupProblem, relationLookups, relationTest, type LinkedColumns } from "./lookups";

export { MAX_FORMULA_TEXT };

export interface CompiledText {
  expression: Expr;
  /** The canonical text (normalized spacing, function names as the catalogue spells them). */
  text: string;
  description: DescriptionItem[];
  /** Column ids the formula reads, in first-mention order. */
  references: string[];
  resultType: ResultType;
}

/** Columns the text may name and the formulas it may depend on: the table's live columns. */
function live(columns: readonly TableColumn[]): TableColumn[] {
  return columns.filter((c) => !c.isDeleted);
}

function formulaError(problems: FormulaProblem[], path: string): never {
  const details: ErrorDetail[] = problems.map((p) => ({ path, ...p }));
  const first = problems[0]!;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : "";
  throw unprocessable(`${first.message} (line ${first.line}, column ${first.column})${more}`, details);
}

/** Deepest parenthesis nesting, outside strings and braces, and where it passes `limit` (cheap guard before the recursive parser). */
function nestingPastLimit(text: string, limit: number): number | null {
  let depth = 0;
  let unary = 0;
  let quote = false;
  let brace = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === '"') quote = false;
      continue;
    }
    if (brace) {
      if (ch === "\\") i += 1;
      else if (ch === "}") brace = false;
      continue;
    }
    if (ch === '"') quote = true;
    else if (ch === "{") brace = true;
    else if (ch === "(") depth += 1;
    else if (ch === ")") depth -= 1;
    // Chains of signs nest too (- - - 1).
    if (ch === "-" || ch === "+") unary += 1;
    else if (!/\s/.test(ch)) unary = 0;
    if (depth + unary > limit) return i;
  }
  return null;
}

/**
 * Parses `text` for the table whose columns are `columns`; `columnId` is the formula's own column when it has
 * one (for cycles). Throws 422 with every problem found, each at its line and column; `path` names the body
 * member in the details.
 */
export function compileFormulaText(
  text: string,
  columns: readonly TableColumn[],
  opts: { columnId?: string; path: string; linked?: LinkedColumns },
): CompiledText {
  const linked = opts.linked ?? new Map();
  if (text.length > MAX_FORMULA_TEXT)
    formulaError([{ line: 1, column: 1, message: `A formula is at most ${MAX_FORMULA_TEXT} characters` }], opts.path);
  const tooDeepAt = nestingPastLimit(text, MAX_FORMULA_DEPTH);
  if (tooDeepAt !== null)
    formulaError(
      [{ ...positionAt(text, tooDeepAt), message: `The formula nests more than ${MAX_FORMULA_DEPTH} levels deep` }],
      opts.path,
    );
  const cols = live(columns);
  let parsed: ReturnType<typeof parseFormula>;
  try {
    parsed = parseFormula(text, cols, linked);
  } catch (err) {
    if (err instanceof FormulaSyntaxError) formulaError(err.problems, opts.path);
    // The bounds above keep the recursive passes shallow; should one still run out of stack, it is the formula's size.
    if (err instanceof RangeError)
      formulaError([{ line: 1, column: 1, message: "The formula is too large or nests too deeply" }], opts.path);
    throw err;
  }
  const { expr, referencePositions } = parsed;
  const { depth, nodes } = measureTree(expr);
  if (depth > MAX_FORMULA_DEPTH)
    formulaError(
      [{ line: 1, column: 1, message: `The formula nests more than ${MAX_FORMULA_DEPTH} levels deep` }],
      opts.path,
    );
  if (nodes > MAX_FORMULA_NODES)
    formulaError([{ line: 1, column: 1, message: `The formula has more than ${MAX_FORMULA_NODES} parts` }], opts.path);

  const lookupProblems = relationLookups(expr, relationTest(cols)).flatMap((l) => {
    const message = lookupProblem(l, linked);
    return message ? [{ ...(parsed.referencePositions.get(l.columnId) ?? { line: 1, column: 1 }), message }] : [];
  });
  if (lookupProblems.length > 0) formulaError(lookupProblems, opts.path);

  if (opts.columnId) {
    const cycle = findCycle(opts.columnId, formulaTrees(cols, { columnId: opts.columnId, expression: expr }));
    if (cycle) {
      const byId = new Map(cols.map((c) => [c.id, c]));
      const names = cycle.map((id) => `{${byId.get(id)?.name ?? id}}`);
      const pos = referencePositions.get(cycle[1]!) ?? { line: 1, column: 1 };
      const message =
        cycle.length === 2
          ? `The formula refers to its own column ${names[0]}`
          : `The formula creates a reference cycle: ${names.join(" → ")}`;
      formulaError([{ ...pos, message }], opts.path);
    }
  }
  return { expression: expr, ...describeFormula(expr, cols, linked), references: [...referencePositions.keys()] };
}

/** The text, description and result type of a stored tree, with the table's (and linked tables') current column names. */
export function describeFormula(
  expr: Expr,
  columns: readonly TableColumn[],
  linked?: LinkedColumns,
): { text: string; description: DescriptionItem[]; resultType: ResultType } {
  const cols = live(columns);
  const printed = printFormula(expr, cols, { linked });
  const resultType = inferResultType(
    expr,
    cols.map((c) => ({
      id: c.id,
      type: c.data.type,
      expression: c.data.type === "formula" ? (c.formula?.expression ?? null) : null,
    })),
  );
  return { ...printed, resultType };
}

/** The node path ("args.1") a validation detail path ("expression.args.1.fn") points at, or null. */
function nodePathOf(detailPath: string): string | null {
  if (detailPath !== "expression" && !detailPath.startsWith("expression.")) return null;
  const parts = detailPath.split(".").slice(1);
  const last = parts.at(-1);
  if (last === "fn" || last === "columnId" || last === "args") parts.pop();
  return parts.join(".");
}

/**
 * A tree's 422 (from validateFormula, here or in the table's coordinator) with each problem's line and column in
 * the tree's canonical text (what the column will show), so a tree write answers like a text write.
 */
export function locateTreeProblems(
  err: unknown,
  expr: Expr,
  columns: readonly TableColumn[],
  linked?: LinkedColumns,
): unknown {
  if (!(err instanceof ApiError) || err.code !== "UnprocessableEntityError" || !err.details) return err;
  const printed = printFormula(expr, live(columns), { withOffsets: true, linked });
  const details = err.details.map((d) => {
    const nodePath = nodePathOf(d.path);
    const offset = nodePath === null ? undefined : printed.offsets.get(nodePath);
    return offset === undefined ? d : { ...d, ...positionAt(printed.text, offset) };
  });
  const shown = printed.text.length > 200 ? `${printed.text.slice(0, 200)}…` : printed.text;
  return new ApiError(err.code, `${err.message} (in ${shown})`, { details });
}

/** validateFormula for a tree given as such, its problems located (locateTreeProblems). */
export function validateTree(
  input: { columnId: string; expression: ParsedExpression; description: DescriptionItem[] },
  columns: readonly TableColumn[],
  linked?: LinkedColumns,
): Expr {
  try {
    return validateFormula(input, columns, linked);
  } catch (err) {
    throw input.expression.tooDeep ? err : locateTreeProblems(err, input.expression.expr, columns, linked);
  }
}
