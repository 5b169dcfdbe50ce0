/**
 * Any formula tree back to its canonical text (docs/api-guide.md, "Formulas as text"): operators spaced,
 * function names as the catalogue spells them, parentheses only where precedence needs them, columns by their
 * current name (by id, `{#id}`, when the name is missing or shared). Parsing the printed text gives a tree that
 * prints to the same text again.
 *
 * Trees from E3 may hold what the text has no spelling for; they print as their meaning: the `%` operator
 * (modulo in the tree) as MOD(a, b), a blank literal as BLANK().
 */
import type { ArrayItem, BinaryOp, DescriptionItem, Expr } from "./expression";
import { lookupFunction } from "./functions";
import { looksLikeArrayConstant } from "./lexer";
import type { NamedColumn } from "./text";

/** Binding strength, loosest first, as the parser reads it. */
const LEVEL = { compare: 1, concat: 2, additive: 3, multiplicative: 4, power: 5, unary: 6, primary: 8 } as const;

function opLevel(op: BinaryOp): number {
  switch (op) {
    case "&":
      return LEVEL.concat;
    case "+":
    case "-":
      return LEVEL.additive;
    case "*":
    case "/":
      return LEVEL.multiplicative;
    case "^":
      return LEVEL.power;
    case "%":
      return LEVEL.primary; // printed as MOD(…)
    default:
      return LEVEL.compare;
  }
}

/** JavaScript's shortest round-trip spelling (1e+21, 1e-7 included), which the number syntax reads back exactly. */
function numberText(n: number): string {
  return String(n);
}

function stringText(s: string): string {
  return `"${s.replaceAll('"', '""')}"`;
}

function itemText(v: ArrayItem): string {
  if (typeof v === "string") return stringText(v);
  if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  return numberText(v);
}

/** `{Name}` with `\` and `}` escaped; a name that would read as an array constant or an id gets its first character escaped. */
export function columnRefText(name: string): string {
  let inner = name.replace(/[\\}]/g, (c) => `\\${c}`);
  if (inner.startsWith("#") || looksLikeArrayConstant(inner)) inner = `\\${inner}`;
  return `{${inner}}`;
}

export interface PrintedFormula {
  text: string;
  /** The same text as description items: text runs and a chip per column reference (E3's `description`). */
  description: DescriptionItem[];
  /** With `withOffsets`: where each node starts in `text` (a character offset), by its path in the tree: "", "args.0", "args.1.arg", … */
  offsets: Map<string, number>;
}

/** The canonical text of `expr`, naming columns from `columns` (the table's live columns). */
// eslint-disable-next-line max-lines-per-function -- one case per kind of formula node
export function printFormula(
  expr: Expr,
  columns: readonly NamedColumn[],
  opts: { withOffsets?: boolean; linked?: ReadonlyMap<string, readonly NamedColumn[]> } = {},
): PrintedFormula {
  const withOffsets = opts.withOffsets ?? false;
  const linked = opts.linked ?? new Map<string, readonly NamedColumn[]>();
  const names = (list: readonly NamedColumn[]) => {
    const count = new Map<string, number>();
    for (const c of list) count.set(c.name, (count.get(c.name) ?? 0) + 1);
    return { count, nameOf: new Map(list.map((c) => [c.id, c.name])) };
  };
  const own = names(columns);
  const linkedNames = new Map<string, ReturnType<typeof names>>();
  const items: DescriptionItem[] = [];
  const offsets = new Map<string, number>();
  let length = 0;
  const emit = (text: string) => {
    length += text.length;
    const last = items.at(-1);
    if (last && last.kind === "text") last.text += text;
    else items.push({ kind: "text", text });
  };
  const emitColumn = (columnId: string, among = own) => {
    const name = among.nameOf.get(columnId);
    const byName = name !== undefined && among.count.get(name) === 1 && name.trim() === name && name !== "";
    const text = byName ? columnRefText(name) : `{#${columnId}}`;
    items.push({ kind: "column", text, columnId });
    length += text.length;
  };
  // Paths grow with depth (quadratic work over a deep tree), so they are only built when asked for.
  const child = (path: string, key: string) => (!withOffsets ? "" : path ? `${path}.${key}` : key);

  /** Prints `e`, parenthesised when it binds looser than `min`. */
  const print = (e: Expr, min: number, path: string): void => {
    const level = levelOf(e);
    const paren = level < min;
    if (paren) emit("(");
    if (withOffsets) offsets.set(path, length);
    printBare(e, path);
    if (paren) emit(")");
  };

  const printBare = (e: Expr, path: string): void => {
    switch (e.kind) {
      case "literal":
        if (e.value === null) return emit("BLANK()");
        if (typeof e.value === "string") return emit(stringText(e.value));
        if (typeof e.value === "boolean") return emit(e.value ? "TRUE" : "FALSE");
        return emit(numberText(e.value));
      case "array":
        return emit(`{${e.rows.map((r) => r.map(itemText).join(", ")).join("; ")}}`);
      case "column":
        return emitColumn(e.columnId);
      case "name":
        return emit(e.name);
      case "neg":
        emit("-");
        return print(e.arg, LEVEL.unary, child(path, "arg"));
      case "op": {
        if (e.op === "%") return printCall("MOD", e.args, path);
        const level = opLevel(e.op);
        print(e.args[0], level, child(path, "args.0"));
        emit(` ${e.op} `);
        // Operators bind left: a right operand of the same level needs parentheses.
        return print(e.args[1], level + 1, child(path, "args.1"));
      }
      case "call": {
        const [relation, target] = e.args;
        if (
          e.fn.toUpperCase() === "LOOKUP" &&
          e.args.length === 2 &&
          relation?.kind === "column" &&
          target?.kind === "column"
        ) {
          const among = linked.get(relation.columnId);
          if (among) {
            // LOOKUP({Relation}, {Column}): the column is named as the linked table names it.
            let linkedNamed = linkedNames.get(relation.columnId);
            if (!linkedNamed) linkedNames.set(relation.columnId, (linkedNamed = names(among)));
            emit("LOOKUP(");
            if (withOffsets) offsets.set(child(path, "args.0"), length);
            emitColumn(relation.columnId);
            emit(", ");
            if (withOffsets) offsets.set(child(path, "args.1"), length);
            emitColumn(target.columnId, linkedNamed);
            return emit(")");
          }
        }
        return printCall(lookupFunction(e.fn)?.name ?? e.fn.toUpperCase(), e.args, path);
      }
    }
  };

  const printCall = (name: string, args: readonly Expr[], path: string) => {
    emit(`${name}(`);
    args.forEach((a, i) => {
      if (i > 0) emit(", ");
      print(a, LEVEL.compare, child(path, `args.${i}`));
    });
    emit(")");
  };

  print(expr, LEVEL.compare, "");
  return { text: items.map((i) => i.text).join(""), description: items, offsets };
}

function levelOf(e: Expr): number {
  switch (e.kind) {
    case "op":
      return opLevel(e.op);
    case "neg":
      return LEVEL.unary;
    case "literal":
      // A negative number prints with its minus sign: it reads back as a negation.
      return typeof e.value === "number" && (e.value < 0 || Object.is(e.value, -0)) ? LEVEL.unary : LEVEL.primary;
    default:
      return LEVEL.primary;
  }
}
