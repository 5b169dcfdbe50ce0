/**
 * The type of value a formula yields, known from its tree and the types of the columns it reads, without
 * evaluating it (docs/api-guide.md, "Formulas as text"). `unknown` when it depends on the data (IF with a
 * number in one branch and text in the other, a lookup).
 */
import type { Expr } from "./expression";
import { DATE_RESULT_FUNCTIONS } from "./evaluate";
import { lookupFunction } from "./functions";

export const RESULT_TYPES = ["number", "text", "boolean", "date", "array", "error", "unknown"] as const;
export type ResultType = (typeof RESULT_TYPES)[number];

/** A column as inference needs it: its type and, for a formula column, its tree. */
export interface TypedColumn {
  id: string;
  type: string;
  expression?: Expr | null;
}

const TEXT_FUNCTIONS = new Set([
  "LEFT",
  "RIGHT",
  "MID",
  "UPPER",
  "LOWER",
  "PROPER",
  "TRIM",
  "CLEAN",
  "CONCATENATE",
  "CONCAT",
  "TEXTJOIN",
  "SUBSTITUTE",
  "REPLACE",
  "REPT",
  "TEXT",
  "CHAR",
  "UNICHAR",
  "T",
  "FIXED",
  "DOLLAR",
  "ROMAN",
  "BASE",
  "DEC2BIN",
  "DEC2HEX",
  "DEC2OCT",
  "BIN2HEX",
  "BIN2OCT",
  "HEX2BIN",
  "HEX2OCT",
  "OCT2BIN",
  "OCT2HEX",
  "COMPLEX",
  "IMABS",
  "IMAGINARY",
  "IMREAL",
  "IMSUM",
  "IMSUB",
  "IMPRODUCT",
  "IMDIV",
  "IMPOWER",
  "IMSQRT",
  "IMEXP",
  "IMLN",
  "IMLOG10",
  "IMLOG2",
  "IMSIN",
  "IMCOS",
  "IMTAN",
  "IMCONJUGATE",
  "IMARGUMENT",
  "ARRAYJOIN",
  "JOIN",
  "TEXTBEFORE",
  "TEXTAFTER",
  "REGEXEXTRACT",
  "REGEXREPLACE",
  "ENCODEURL",
  "BAHTTEXT",
  "ASC",
  "DBCS",
  "JIS",
  "PHONETIC",
  "LEFTB",
  "RIGHTB",
  "MIDB",
  "REPLACEB",
  "VALUETOTEXT",
  "ARRAYTOTEXT",
]);

const BOOLEAN_FUNCTIONS = new Set([
  "AND",
  "OR",
  "XOR",
  "NOT",
  "TRUE",
  "FALSE",
  "EXACT",
  "ISBLANK",
  "ISERROR",
  "ISERR",
  "ISNA",
  "ISNUMBER",
  "ISTEXT",
  "ISLOGICAL",
  "ISNONTEXT",
  "ISEVEN",
  "ISODD",
  "ISREF",
  "ISFORMULA",
  "ISEMAIL",
  "ISURL",
  "REGEXMATCH",
  "DELTA",
  "GESTEP",
]);

const ARRAY_FUNCTIONS = new Set([
  "SORT",
  "SORTBY",
  "UNIQUE",
  "FILTER",
  "SEQUENCE",
  "TRANSPOSE",
  "MMULT",
  "MINVERSE",
  "MUNIT",
  "HSTACK",
  "VSTACK",
  "CHOOSECOLS",
  "CHOOSEROWS",
  "TEXTSPLIT",
  "SPLIT",
  "FLATTEN",
  "TOCOL",
  "TOROW",
  "WRAPCOLS",
  "WRAPROWS",
  "TAKE",
  "DROP",
  "EXPAND",
  "FREQUENCY",
  "LINEST",
  "LOGEST",
  "GROWTH",
  "TREND",
  "ARGS2ARRAY",
  "RANDARRAY",
]);

/** Functions whose result is one of their arguments, or a value found in the data. */
const DATA_DEPENDENT_FUNCTIONS = new Set([
  "VLOOKUP",
  "HLOOKUP",
  "LOOKUP",
  "XLOOKUP",
  "INDEX",
  "OFFSET",
  "INDIRECT",
  "MAXA",
  "MINA",
]);

const ERROR_FUNCTIONS = new Set(["NA", "ERROR"]);

function unify(types: ResultType[]): ResultType {
  const live = types.filter((t) => t !== "error");
  if (live.length === 0) return types.length > 0 ? "error" : "unknown";
  return live.every((t) => t === live[0]) ? live[0]! : "unknown";
}

function columnType(type: string): ResultType {
  switch (type) {
    case "number":
      return "number";
    case "checkbox":
      return "boolean";
    case "date":
      return "date";
    case "multiSelect":
    case "oneMany":
      return "array";
    case "identifier":
    case "text":
    case "url":
    case "email":
    case "select":
      return "text";
    default:
      return "unknown";
  }
}

/** The result type of `expr` in a table with `columns`. */
// eslint-disable-next-line max-lines-per-function -- one case per kind of formula node
export function inferResultType(expr: Expr, columns: readonly TypedColumn[]): ResultType {
  const byId = new Map(columns.map((c) => [c.id, c]));
  const formulaTypes = new Map<string, ResultType>();
  const visiting = new Set<string>();

  const ofColumn = (id: string): ResultType => {
    const col = byId.get(id);
    if (!col) return "error";
    if (col.type !== "formula") return columnType(col.type);
    if (!col.expression) return "unknown";
    const known = formulaTypes.get(id);
    if (known) return known;
    if (visiting.has(id)) return "error";
    visiting.add(id);
    const t = infer(col.expression);
    visiting.delete(id);
    formulaTypes.set(id, t);
    return t;
  };

  // eslint-disable-next-line max-lines-per-function -- one case per kind of formula node
  const infer = (e: Expr): ResultType => {
    switch (e.kind) {
      case "literal":
        return e.value === null
          ? "unknown"
          : typeof e.value === "number"
            ? "number"
            : typeof e.value === "boolean"
              ? "boolean"
              : "text";
      case "array":
        return "array";
      case "column":
        return ofColumn(e.columnId);
      case "name":
        return "unknown";
      case "neg":
        return infer(e.arg) === "error" ? "error" : "number";
      case "op": {
        if (e.op === "&") return "text";
        if (["=", "<>", "<", "<=", ">", ">="].includes(e.op)) return "boolean";
        const [a, b] = e.args.map(infer) as [ResultType, ResultType];
        if (a === "error" || b === "error") return "error";
        if (e.op === "+" && (a === "date") !== (b === "date")) return "date";
        if (e.op === "-" && a === "date" && b !== "date") return "date";
        return "number";
      }
      case "call": {
        const spec = lookupFunction(e.fn);
        if (!spec) return "error";
        const fn = spec.name;
        switch (fn) {
          case "IF":
            return e.args.length >= 3
              ? unify([infer(e.args[1]!), infer(e.args[2]!)])
              : unify([infer(e.args[1]!), "boolean"]);
          case "IFS":
            return unify(e.args.filter((_, i) => i % 2 === 1).map(infer));
          case "IFERROR":
          case "IFNA":
            return unify(e.args.map(infer));
          case "CHOOSE":
            return unify(e.args.slice(1).map(infer));
          case "LOOKUP": {
            // LOOKUP({Relation}, {Column}) over linked rows yields their list.
            const first = e.args[0];
            if (e.args.length === 2 && first?.kind === "column" && byId.get(first.columnId)?.type === "oneMany")
              return "array";
            break;
          }
          case "LET":
            return e.args.length > 0 && e.args.at(-1)!.kind !== "name" ? infer(e.args.at(-1)!) : "unknown";
          case "SWITCH": {
            const rest = e.args.slice(1);
            const results = rest.filter((_, i) => i % 2 === 1);
            if (rest.length % 2 === 1) results.push(rest.at(-1)!);
            return unify(results.map(infer));
          }
        }
        if (DATE_RESULT_FUNCTIONS.has(fn)) return "date";
        if (ERROR_FUNCTIONS.has(fn)) return "error";
        if (TEXT_FUNCTIONS.has(fn)) return "text";
        if (BOOLEAN_FUNCTIONS.has(fn)) return "boolean";
        if (ARRAY_FUNCTIONS.has(fn)) return "array";
        if (DATA_DEPENDENT_FUNCTIONS.has(fn)) return "unknown";
        return "number";
      }
    }
  };

  return infer(expr);
}
