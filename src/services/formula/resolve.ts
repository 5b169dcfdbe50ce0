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
export function parseFormula(text: string, columns: readonly NamedColumn[], linked: ReadonlyMap<string, readonly NamedColumn[]> = new Map()): ParsedFormula {
  const syntax = parseSyntax(text);
  const problems: FormulaProblem[] = [];
  const byId = new Map(columns.map((c) => [c.id, c]));
  const byName = new Map<string, NamedColumn[]>();
  for (const c of columns) byName.set(c.name, [...(byName.get(c.name) ?? []), c]);
  const referencePositions = new Map<string, Position>();
  const functionNames = [...FUNCTION_CATALOG.keys()];

  const resolveName = (name: string, pos: Position, among: readonly NamedColumn[] = columns): string | undefined => {
    let found = among === columns ? byName.get(name) : among.filter((c) => c.name === name);
    if (!found || found.length === 0) {
      const folded = name.trim().toLowerCase();
      found = among.filter((c) => c.name.trim().toLowerCase() === folded);
    }
    if (found.length === 1) return found[0]!.id;
    if (found.length > 1) {
      problems.push({ ...pos, message: `More than one column is named "${name}": refer to one by id, ${found.map((c) => `{#${c.id}}`).join(" or ")}`, suggestions: found.map((c) => `{#${c.id}}`) });
      return undefined;
    }
    const suggestions = nearest(name, among.map((c) => c.name));
    problems.push({
      ...pos,
      message: `Unknown column {${name}}${among === columns ? "" : " in the linked table"}${suggestions.length ? `; did you mean ${suggestions.map((s) => `{${s}}`).join(", ")}?` : ""}`,
      ...(suggestions.length && { suggestions }),
    });
    return undefined;
  };

  // Names bound by the LET calls around the syntax being resolved.
  const scope: string[] = [];
  /** LET(name1, value1, …, calculation): each name is bound for the values after it and for the calculation. */
  const resolveLet = (s: Extract<Syntax, { kind: "call" }>): Expr => {
    const spec = lookupFunction("LET")!;
    const arity = arityProblem(spec, s.args.length);
    if (arity) problems.push({ ...s.at, message: `${arity}: LET(name1, value1, [name2, value2, …], calculation)` });
    const before = scope.length;
    const args = s.args.map((a, i): Expr => {
      if (i % 2 === 1 || i === s.args.length - 1) return resolve(a);
      const upper = a.kind === "name" ? a.name.toUpperCase() : "";
      if (a.kind !== "name" || upper === "TRUE" || upper === "FALSE" || !LET_NAME.test(a.name)) {
        problems.push({ ...a.at, message: "LET takes a name here, such as x or total (letters, digits and _)" });
        return { kind: "literal", value: null };
      }
      scope.push(upper);
      return { kind: "name", name: upper };
    });
    scope.length = before;
    return { kind: "call", fn: "LET", args };
  };

  const resolve = (s: Syntax): Expr => {
    switch (s.kind) {
      case "literal":
        return { kind: "literal", value: s.value };
      case "ref": {
        let id: string | undefined;
        if (s.id !== undefined) {
          if (byId.has(s.id)) id = s.id;
          else problems.push({ ...s.at, message: `Unknown column id {#${s.id}}: no column of this table has that id` });
        } else {
          // `{5}` with no column of that name is Excel's one-item array constant: its one value.
          const single = new RegExp(`^\\s*(?:${CONSTANT})\\s*$`);
          if (single.test(s.name!) && !columns.some((c) => c.name.trim().toLowerCase() === s.name!.trim().toLowerCase())) {
            return { kind: "literal", value: constantValue(s.name!.trim()) };
          }
          id = resolveName(s.name!, s.at);
        }
        if (id && !referencePositions.has(id)) referencePositions.set(id, s.at);
        return { kind: "column", columnId: id ?? "" };
      }
      case "array":
        return arrayConstant(s.token, s.at, problems);
      case "op":
        return { kind: "op", op: s.op, args: [resolve(s.args[0]), resolve(s.args[1])] };
      case "neg":
        return { kind: "neg", arg: resolve(s.arg) };
      case "name": {
        const upper = s.name.toUpperCase();
        if (upper === "TRUE" || upper === "FALSE") return { kind: "literal", value: upper === "TRUE" };
        if (scope.includes(upper)) return { kind: "name", name: upper };
        const isFunction = lookupFunction(s.name);
        const columnHint = nearest(s.name, columns.map((c) => c.name));
        // A column may share its name with a function (a "Price" column and PRICE): name both readings.
        const sameColumn = columns.find((c) => c.name.toUpperCase() === upper);
        problems.push({
          ...s.at,
          message: isFunction
            ? `${isFunction.name} is a function: call it with parentheses, ${signatureOf(isFunction)}${sameColumn ? `; the column is written in braces, {${sameColumn.name}}` : ""}`
            : `Unknown name ${s.name}: a column is written in braces, {${columnHint[0] ?? s.name}}, and text in double quotes, "${s.name}"`,
          ...(columnHint.length && !isFunction && { suggestions: columnHint.map((n) => `{${n}}`) }),
        });
        return { kind: "literal", value: null };
      }
      case "call": {
        const upper = s.name.toUpperCase();
        if (upper === "LET") return resolveLet(s);
        // The first argument of a LOOKUP, resolved once: a relation makes it a lookup over linked rows.
        const first = upper === "LOOKUP" && s.args[0]?.kind === "ref" ? resolve(s.args[0]) : undefined;
        const lookup = first && resolveRelationLookup(s, first);
        if (lookup) return lookup;
        const args = s.args.map((a, i) => (i === 0 && first ? first : resolve(a)));
        // TRUE() and FALSE() are the literals; BLANK() is the empty value (an omitted argument).
        if ((upper === "TRUE" || upper === "FALSE") && args.length === 0) return { kind: "literal", value: upper === "TRUE" };
        if (upper === "BLANK" && args.length === 0) return { kind: "literal", value: null };
        const spec = lookupFunction(upper);
        if (!spec) {
          const suggestions = nearest(upper, functionNames);
          problems.push({
            ...s.at,
            message: `Unknown function ${s.name}${suggestions.length ? `; did you mean ${suggestions.join(", ")}?` : ""}`,
            ...(suggestions.length && { suggestions }),
          });
          return { kind: "call", fn: upper, args };
        }
        const arity = arityProblem(spec, args.length);
        if (arity) problems.push({ ...s.at, message: `${arity}: ${signatureOf(spec)}` });
        return { kind: "call", fn: spec.name, args };
      }
    }
  };

  /** LOOKUP({Relation}, {Column}): `{Column}` is named among the linked table's columns (docs/api-guide.md › Formulas). */
  const resolveRelationLookup = (s: Extract<Syntax, { kind: "call" }>, relationExpr: Expr): Expr | null => {
    const target = s.args[1];
    const relationId = relationExpr.kind === "column" ? relationExpr.columnId : "";
    const among = linked.get(relationId);
    if (!among) return null;
    if (s.args.length !== 2 || target?.kind !== "ref") {
      problems.push({ ...s.at, message: "A lookup over a relation takes the relation and a column of the linked table: LOOKUP({Relation}, {Column})" });
      return { kind: "literal", value: null };
    }
    let id: string | undefined;
    if (target.id !== undefined) {
      if (among.some((c) => c.id === target.id)) id = target.id;
      else problems.push({ ...target.at, message: `Unknown column id {#${target.id}}: no column of the linked table has that id` });
    } else id = resolveName(target.name!, target.at, among);
    return { kind: "call", fn: "LOOKUP", args: [relationExpr, { kind: "column", columnId: id ?? "" }] };
  };

  const expr = resolve(syntax);
  if (problems.length > 0) throw new FormulaSyntaxError(problems);
  return { expr, referencePositions };
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
    problems.push({ ...pos, message: "Every row of an array constant needs the same number of items (rows are separated by ;, items by ,)" });
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
