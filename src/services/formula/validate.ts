/**
 * Meaning checks of a formula against its table (docs/api-guide.md › Formulas): every problem is 422 UnprocessableEntityError,
 * and nothing is persisted. The shape was checked by zod already (400).
 */
import { unprocessable, type ErrorDetail } from "../../errors";
import {
  MAX_FORMULA_DEPTH,
  MAX_FORMULA_NODES,
  measureTree,
  type DescriptionItem,
  type Expr,
  type ParsedExpression,
} from "./expression";
import { arityProblem, lookupFunction } from "./functions";
import { findCycle, formulaTrees, type TableColumn } from "./graph";
import { lookupProblem, relationLookupOf, relationTest, type LinkedColumns } from "./lookups";

export interface FormulaToValidate {
  columnId: string;
  expression: ParsedExpression;
  description: DescriptionItem[];
}

/** The tree when the formula means something for this table, else throws 422 listing every problem. */
// eslint-disable-next-line max-lines-per-function -- one case per kind of formula node
export function validateFormula(
  input: FormulaToValidate,
  columns: readonly TableColumn[],
  linked: LinkedColumns = new Map(),
): Expr {
  if (input.expression.tooDeep) {
    throw unprocessable(`The formula nests more than ${MAX_FORMULA_DEPTH} levels deep`, [
      { path: "expression", message: `deeper than ${MAX_FORMULA_DEPTH} levels` },
    ]);
  }
  const expr = input.expression.expr;
  const { nodes } = measureTree(expr, MAX_FORMULA_DEPTH, MAX_FORMULA_NODES);
  if (nodes > MAX_FORMULA_NODES) {
    throw unprocessable(`The formula has more than ${MAX_FORMULA_NODES} parts`, [
      { path: "expression", message: "too many nodes" },
    ]);
  }

  const byId = new Map(columns.map((c) => [c.id, c]));
  const isRelation = relationTest(columns);
  const problems: ErrorDetail[] = [];
  const linkedIds = new Set([...linked.values()].flatMap((list) => list.map((c) => c.id)));
  const checkColumn = (columnId: string, path: string, orLinked = false) => {
    if (orLinked && linkedIds.has(columnId)) return;
    const col = byId.get(columnId);
    if (!col) problems.push({ path, message: `Column ${columnId} is not a column of this table` });
    else if (col.isDeleted) problems.push({ path, message: `Column "${col.name}" (${columnId}) is deleted` });
  };

  // Names bound by the LET calls around the node being walked.
  const scope: string[] = [];
  const walk = (e: Expr, path: string) => {
    switch (e.kind) {
      case "literal":
      case "array":
        return;
      case "name":
        if (!scope.includes(e.name.toUpperCase()))
          problems.push({ path, message: `Unknown name ${e.name}: only LET binds names` });
        return;
      case "column":
        return checkColumn(e.columnId, `${path}.columnId`);
      case "neg":
        return walk(e.arg, `${path}.arg`);
      case "op":
        return e.args.forEach((a, i) => walk(a, `${path}.args.${i}`));
      case "call": {
        // LOOKUP({Relation}, {Column}): the second column is the linked table's.
        const lookup = relationLookupOf(e, isRelation);
        if (lookup) {
          const problem = lookupProblem(lookup, linked);
          if (problem) problems.push({ path: `${path}.args.1`, message: problem });
          return;
        }
        const spec = lookupFunction(e.fn);
        if (!spec) problems.push({ path: `${path}.fn`, message: `Unknown function ${e.fn}` });
        else {
          const arity = arityProblem(spec, e.args.length);
          if (arity) problems.push({ path: `${path}.args`, message: arity });
        }
        if (spec?.name === "LET") {
          // LET(name1, value1, …, calculation): each name is bound for the values after it and the calculation.
          const before = scope.length;
          e.args.forEach((a, i) => {
            const isName = i % 2 === 0 && i < e.args.length - 1;
            if (!isName) return walk(a, `${path}.args.${i}`);
            if (a.kind !== "name")
              problems.push({ path: `${path}.args.${i}`, message: "LET takes a name here, such as x" });
            else scope.push(a.name.toUpperCase());
          });
          scope.length = before;
          return;
        }
        return e.args.forEach((a, i) => walk(a, `${path}.args.${i}`));
      }
    }
  };
  walk(expr, "expression");
  input.description.forEach((item, i) => {
    if (item.kind === "column") checkColumn(item.columnId, `description.${i}.columnId`, true);
  });

  if (problems.length === 0) {
    const cycle = findCycle(input.columnId, formulaTrees(columns, { columnId: input.columnId, expression: expr }));
    if (cycle) {
      const names = cycle.map((id) => `"${byId.get(id)?.name ?? id}"`);
      const message =
        cycle.length === 2
          ? `The formula refers to its own column ${names[0]}`
          : `The formula creates a cycle: ${names.join(" → ")}`;
      problems.push({ path: "expression", message });
    }
  }

  if (problems.length > 0) {
    const first = problems[0]!.message;
    throw unprocessable(
      problems.length === 1
        ? first
        : `${first} (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})`,
      problems,
    );
  }
  return expr;
}
