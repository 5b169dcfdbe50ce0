/**
 * The second step of parsing formula text (docs/api-guide.md, "Formulas as text"): the positioned syntax tree of
 * text.ts resolved against the table's columns (and, inside LOOKUP over a relation, the linked table's) and the
 * function catalogue into the compiled tree, with every problem found at its line and column.
 */
import type { ArrayItem, Expr } from "./expression";
import { LET_NAME, MAX_ARRAY_ITEMS } from "./expression";
import { arityProblem, FUNCTION_CATALOG, lookupFunction, signatureOf } from "./functions";
import { nearest } from "./suggest";
import { CONSTANT, type Position } from "./lexer";
import { FormulaSyntaxError, type FormulaProblem } from "./syntaxErrors";
import { parseSyntax, percentOf, type NamedColumn, type Syntax } from "./text";

export interface ParsedFormula {
  expr: Expr;
  /** Where each referenced column is first named, for messages about references (cycles). */
  referencePositions: Map<string, Position>;
}

/**
 * The text as a tree for a table with `columns`: throws FormulaSyntaxError listing every problem with its
 * position (unknown columns and functions with the nearest names, argument counts with the signature).
 */
export function parseFormula(
  text: string,
  columns: readonly NamedColumn[],
  linked: ReadonlyMap<string, readonly NamedColumn[]> = new Map(),
): ParsedFormula {
  const syntax = parseSyntax(text);
  const resolver = new Resolver(columns, linked);
  const expr = resolver.resolve(syntax);
  if (resolver.problems.length > 0) throw new FormulaSyntaxError(resolver.problems);
  return { expr, referencePositions: resolver.referencePositions };
}

type CallSyntax = Extract<Syntax, { kind: "call" }>;

/** One resolution of a syntax tree: the problems it finds, the columns it references and the LET names in scope. */
class Resolver {
  readonly problems: FormulaProblem[] = [];
  readonly referencePositions = new Map<string, Position>();
  private readonly byId: Map<string, NamedColumn>;
  private readonly byName = new Map<string, NamedColumn[]>();
  private readonly functionNames = [...FUNCTION_CATALOG.keys()];
  /** Names bound by the LET calls around the syntax being resolved. */
  private readonly scope: string[] = [];

  constructor(
    private readonly columns: readonly NamedColumn[],
    private readonly linked: ReadonlyMap<string, readonly NamedColumn[]>,
  ) {
    this.byId = new Map(columns.map((c) => [c.id, c]));
    for (const c of columns) this.byName.set(c.name, [...(this.byName.get(c.name) ?? []), c]);
  }

  resolve(s: Syntax): Expr {
    switch (s.kind) {
      case "literal":
        return { kind: "literal", value: s.value };
      case "ref":
        return this.resolveRef(s);
      case "array":
        return arrayConstant(s.token, s.at, this.problems);
      case "op":
        return { kind: "op", op: s.op, args: [this.resolve(s.args[0]), this.resolve(s.args[1])] };
      case "neg":
        return { kind: "neg", arg: this.resolve(s.arg) };
      case "name":
        return this.resolveBareName(s);
      case "call":
        return this.resolveCall(s);
    }
  }

  private resolveName(name: string, pos: Position, among: readonly NamedColumn[] = this.columns): string | undefined {
    let found = among === this.columns ? this.byName.get(name) : among.filter((c) => c.name === name);
    if (!found || found.length === 0) {
      const folded = name.trim().toLowerCase();
      found = among.filter((c) => c.name.trim().toLowerCase() === folded);
    }
    if (found.length === 1) return found[0]!.id;
    if (found.length > 1) {
      this.problems.push({
        ...pos,
        message: `More than one column is named "${name}": refer to one by id, ${found.map((c) => `{#${c.id}}`).join(" or ")}`,
        suggestions: found.map((c) => `{#${c.id}}`),
      });
      return undefined;
    }
    const suggestions = nearest(
      name,
      among.map((c) => c.name),
    );
    this.problems.push({
      ...pos,
      message: `Unknown column {${name}}${among === this.columns ? "" : " in the linked table"}${suggestions.length ? `; did you mean ${suggestions.map((s) => `{${s}}`).join(", ")}?` : ""}`,
      ...(suggestions.length && { suggestions }),
    });
    return undefined;
  }

  private resolveRef(s: Extract<Syntax, { kind: "ref" }>): Expr {
    let id: string | undefined;
    if (s.id !== undefined) {
      if (this.byId.has(s.id)) id = s.id;
      else
        this.problems.push({ ...s.at, message: `Unknown column id {#${s.id}}: no column of this table has that id` });
    } else {
      // `{5}` with no column of that name is Excel's one-item array constant: its one value.
      const single = new RegExp(`^\\s*(?:${CONSTANT})\\s*$`);
      if (
        single.test(s.name!) &&
        !this.columns.some((c) => c.name.trim().toLowerCase() === s.name!.trim().toLowerCase())
      ) {
        return { kind: "literal", value: constantValue(s.name!.trim()) };
      }
      id = this.resolveName(s.name!, s.at);
    }
    if (id && !this.referencePositions.has(id)) this.referencePositions.set(id, s.at);
    return { kind: "column", columnId: id ?? "" };
  }

  /** A name outside a call: TRUE, FALSE, a LET name in scope, else a problem (a function or a column unbraced). */
  private resolveBareName(s: Extract<Syntax, { kind: "name" }>): Expr {
    const upper = s.name.toUpperCase();
    if (upper === "TRUE" || upper === "FALSE") return { kind: "literal", value: upper === "TRUE" };
    if (this.scope.includes(upper)) return { kind: "name", name: upper };
    const isFunction = lookupFunction(s.name);
    const columnHint = nearest(
      s.name,
      this.columns.map((c) => c.name),
    );
    // A column may share its name with a function (a "Price" column and PRICE): name both readings.
    const sameColumn = this.columns.find((c) => c.name.toUpperCase() === upper);
    this.problems.push({
      ...s.at,
      message: isFunction
        ? `${isFunction.name} is a function: call it with parentheses, ${signatureOf(isFunction)}${sameColumn ? `; the column is written in braces, {${sameColumn.name}}` : ""}`
        : `Unknown name ${s.name}: a column is written in braces, {${columnHint[0] ?? s.name}}, and text in double quotes, "${s.name}"`,
      ...(columnHint.length && !isFunction && { suggestions: columnHint.map((n) => `{${n}}`) }),
    });
    return { kind: "literal", value: null };
  }

  private resolveCall(s: CallSyntax): Expr {
    const upper = s.name.toUpperCase();
    if (upper === "LET") return this.resolveLet(s);
    // The first argument of a LOOKUP, resolved once: a relation makes it a lookup over linked rows.
    const first = upper === "LOOKUP" && s.args[0]?.kind === "ref" ? this.resolve(s.args[0]) : undefined;
    const lookup = first && this.resolveRelationLookup(s, first);
    if (lookup) return lookup;
    const args = s.args.map((a, i) => (i === 0 && first ? first : this.resolve(a)));
    // TRUE() and FALSE() are the literals; BLANK() is the empty value (an omitted argument).
    if ((upper === "TRUE" || upper === "FALSE") && args.length === 0)
      return { kind: "literal", value: upper === "TRUE" };
    if (upper === "BLANK" && args.length === 0) return { kind: "literal", value: null };
    const spec = lookupFunction(upper);
    if (!spec) {
      const suggestions = nearest(upper, this.functionNames);
      this.problems.push({
        ...s.at,
        message: `Unknown function ${s.name}${suggestions.length ? `; did you mean ${suggestions.join(", ")}?` : ""}`,
        ...(suggestions.length && { suggestions }),
      });
      return { kind: "call", fn: upper, args };
    }
    const arity = arityProblem(spec, args.length);
    if (arity) this.problems.push({ ...s.at, message: `${arity}: ${signatureOf(spec)}` });
    return { kind: "call", fn: spec.name, args };
  }

  /** LET(name1, value1, …, calculation): each name is bound for the values after it and for the calculation. */
  private resolveLet(s: CallSyntax): Expr {
    const spec = lookupFunction("LET")!;
    const arity = arityProblem(spec, s.args.length);
    if (arity)
      this.problems.push({ ...s.at, message: `${arity}: LET(name1, value1, [name2, value2, …], calculation)` });
    const before = this.scope.length;
    const args = s.args.map((a, i): Expr => {
      if (i % 2 === 1 || i === s.args.length - 1) return this.resolve(a);
      const upper = a.kind === "name" ? a.name.toUpperCase() : "";
      if (a.kind !== "name" || upper === "TRUE" || upper === "FALSE" || !LET_NAME.test(a.name)) {
        this.problems.push({ ...a.at, message: "LET takes a name here, such as x or total (letters, digits and _)" });
        return { kind: "literal", value: null };
      }
      this.scope.push(upper);
      return { kind: "name", name: upper };
    });
    this.scope.length = before;
    return { kind: "call", fn: "LET", args };
  }

  /** LOOKUP({Relation}, {Column}): `{Column}` is named among the linked table's columns (docs/api-guide.md › Formulas). */
  private resolveRelationLookup(s: CallSyntax, relationExpr: Expr): Expr | null {
    const target = s.args[1];
    const relationId = relationExpr.kind === "column" ? relationExpr.columnId : "";
    const among = this.linked.get(relationId);
    if (!among) return null;
    if (s.args.length !== 2 || target?.kind !== "ref") {
      this.problems.push({
        ...s.at,
        message:
          "A lookup over a relation takes the relation and a column of the linked table: LOOKUP({Relation}, {Column})",
      });
      return { kind: "literal", value: null };
    }
    let id: string | undefined;
    if (target.id !== undefined) {
      if (among.some((c) => c.id === target.id)) id = target.id;
      else
        this.problems.push({
          ...target.at,
          message: `Unknown column id {#${target.id}}: no column of the linked table has that id`,
        });
    } else id = this.resolveName(target.name!, target.at, among);
    return { kind: "call", fn: "LOOKUP", args: [relationExpr, { kind: "column", columnId: id ?? "" }] };
  }
}

/** `{1, 2; 3, 4}` → rows of constants; rows must be equally long. */
function arrayConstant(token: string, pos: Position, problems: FormulaProblem[]): Expr {
  const rows: ArrayItem[][] = [[]];
  const item = new RegExp(String.raw`\s*(${CONSTANT})\s*([,;}])`, "y");
  item.lastIndex = 1;
  for (;;) {
    const m = item.exec(token);
    if (!m) break;
    rows.at(-1)!.push(constantValue(m[1]!));
    if (m[2] === ";") rows.push([]);
    if (m[2] === "}") break;
  }
  const width = rows[0]!.length;
  if (rows.some((r) => r.length !== width)) {
    problems.push({
      ...pos,
      message: "Every row of an array constant needs the same number of items (rows are separated by ;, items by ,)",
    });
  } else if (width * rows.length > MAX_ARRAY_ITEMS) {
    problems.push({ ...pos, message: `An array constant holds at most ${MAX_ARRAY_ITEMS} items` });
  }
  return { kind: "array", rows };
}

function constantValue(image: string): ArrayItem {
  if (image.startsWith('"')) return image.slice(1, -1).replaceAll('""', '"');
  const upper = image.toUpperCase();
  if (upper === "TRUE") return true;
  if (upper === "FALSE") return false;
  if (image.endsWith("%")) return percentOf(Number(image.slice(0, -1)));
  return Number(image);
}
