/**
 * The formula text language (docs/api-guide.md, "Formulas as text"): text → the compiled tree of expression.ts.
 *
 * Built on Chevrotain rather than Ohm: Chevrotain is plain TypeScript (no grammar compiled from a string at
 * run time, no eval, so it runs in a Worker as is), it gives every token its 1-based line and column, its
 * parsers are among the fastest in JavaScript, and it is actively kept (Langium builds on it). Ohm's grammar
 * language is pleasant, but its trees need a separate semantics pass and its error positions are offsets only.
 *
 * Parsing is two steps: the Chevrotain parser here, over the tokens of ./lexer.ts, builds a positioned syntax
 * tree (`Syntax`), then resolve.ts turns it into an `Expr` against the table's columns and the function catalogue, collecting every problem it can
 * find (unknown column or function with suggestions, wrong argument count with the signature) with its line
 * and column. A syntax error (unbalanced brackets, a stray operator) stops at the first one; its message is
 * worded in ./syntaxErrors.ts.
 */
import { EmbeddedActionsParser, type IToken } from "chevrotain";
import {
  Amp,
  ArrayConstant,
  at,
  Caret,
  ColumnRef,
  Comma,
  CompareOp,
  lexer,
  LParen,
  Minus,
  Name,
  NumberLit,
  Percent,
  Plus,
  RParen,
  Slash,
  Star,
  StringLit,
  TOKENS,
  VALUE_TOKENS,
  type Position,
} from "./lexer";
import { FormulaSyntaxError, lexingProblem, parsingProblem } from "./syntaxErrors";
import type { BinaryOp } from "./expression";
import { MAX_FORMULA_NODES } from "./expression";

/** A column the text may name. */
export interface NamedColumn {
  id: string;
  name: string;
}

// ---- syntax tree --------------------------------------------------------------------------------------------

/** What the parser builds: the tree before names are resolved, each node with where it starts. */
export type Syntax =
  | { kind: "literal"; value: string | number | boolean | null; at: Position }
  | { kind: "ref"; name?: string; id?: string; at: Position }
  | { kind: "array"; token: string; at: Position }
  | { kind: "op"; op: BinaryOp; args: [Syntax, Syntax]; at: Position }
  | { kind: "neg"; arg: Syntax; at: Position }
  | { kind: "call"; name: string; args: Syntax[]; at: Position }
  | { kind: "name"; name: string; at: Position };

class FormulaParser extends EmbeddedActionsParser {
  /** Open parentheses not yet closed, for "unbalanced" messages. */
  openParens: IToken[] = [];

  /** `validate`: run Chevrotain's grammar self-checks (the tests do; in service they would only cost each isolate's first parse). */
  constructor(validate = false) {
    super(TOKENS, { recoveryEnabled: false, maxLookahead: 2, skipValidations: !validate });
    this.performSelfAnalysis();
  }

  formula = this.RULE("formula", (): Syntax => this.SUBRULE(this.comparison));

  private additiveOp = (): IToken => this.OR([{ ALT: () => this.CONSUME(Plus) }, { ALT: () => this.CONSUME(Minus) }]);
  private multiplicativeOp = (): IToken =>
    this.OR1([{ ALT: () => this.CONSUME(Star) }, { ALT: () => this.CONSUME(Slash) }]);

  comparison = this.RULE("comparison", (): Syntax => {
    let left = this.SUBRULE(this.concat);
    this.MANY(() => {
      const t = this.CONSUME(CompareOp);
      const right = this.SUBRULE2(this.concat);
      left = { kind: "op", op: t.image as BinaryOp, args: [left, right], at: left?.at ?? at(t) };
    });
    return left;
  });

  concat = this.RULE("concat", (): Syntax => {
    let left = this.SUBRULE(this.additive);
    this.MANY(() => {
      const t = this.CONSUME(Amp);
      const right = this.SUBRULE2(this.additive);
      left = { kind: "op", op: "&", args: [left, right], at: left?.at ?? at(t) };
    });
    return left;
  });

  additive = this.RULE("additive", (): Syntax => {
    let left = this.SUBRULE(this.multiplicative);
    this.MANY(() => {
      const t = this.additiveOp();
      const right = this.SUBRULE2(this.multiplicative);
      left = { kind: "op", op: t.image as BinaryOp, args: [left, right], at: left?.at ?? at(t) };
    });
    return left;
  });

  multiplicative = this.RULE("multiplicative", (): Syntax => {
    let left = this.SUBRULE(this.power);
    this.MANY(() => {
      const t = this.multiplicativeOp();
      const right = this.SUBRULE2(this.power);
      left = { kind: "op", op: t.image as BinaryOp, args: [left, right], at: left?.at ?? at(t) };
    });
    return left;
  });

  /** `^` binds left, as in spreadsheets: 2^3^2 is (2^3)^2. */
  power = this.RULE("power", (): Syntax => {
    let left = this.SUBRULE(this.unary);
    this.MANY(() => {
      const t = this.CONSUME(Caret);
      const right = this.SUBRULE2(this.unary);
      left = { kind: "op", op: "^", args: [left, right], at: left?.at ?? at(t) };
    });
    return left;
  });

  /** Unary minus binds tighter than `^` (-2^2 is 4); unary plus is accepted and means nothing. */
  unary = this.RULE("unary", (): Syntax =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(Minus);
          const arg = this.SUBRULE(this.unary);
          return { kind: "neg", arg, at: at(t) } as Syntax;
        },
      },
      {
        ALT: () => {
          this.CONSUME(Plus);
          return this.SUBRULE2(this.unary);
        },
      },
      { ALT: () => this.SUBRULE(this.postfix) },
    ]),
  );

  /** `x%` is x / 100; on a number it folds into the literal (50% is 0.5). */
  postfix = this.RULE("postfix", (): Syntax => {
    let value = this.SUBRULE(this.primary);
    this.MANY(() => {
      const t = this.CONSUME(Percent);
      value = this.ACTION(() =>
        value.kind === "literal" && typeof value.value === "number"
          ? { kind: "literal", value: percentOf(value.value), at: value.at }
          : { kind: "op", op: "/", args: [value, { kind: "literal", value: 100, at: at(t) }], at: value.at },
      );
    });
    return value;
  });

  primary = this.RULE("primary", (): Syntax =>
    this.OR([
      {
        ALT: () => {
          const t = this.CONSUME(NumberLit);
          return { kind: "literal", value: Number(t.image), at: at(t) } as Syntax;
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(StringLit);
          return { kind: "literal", value: t.image.slice(1, -1).replaceAll('""', '"'), at: at(t) } as Syntax;
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(ColumnRef);
          return this.ACTION(() => columnRefSyntax(t));
        },
      },
      {
        ALT: () => {
          const t = this.CONSUME(ArrayConstant);
          return { kind: "array", token: t.image, at: at(t) } as Syntax;
        },
      },
      { ALT: () => this.SUBRULE(this.nameOrCall) },
      {
        ALT: () => {
          const open = this.CONSUME(LParen);
          this.ACTION(() => this.openParens.push(open));
          const inner = this.SUBRULE(this.comparison);
          this.CONSUME(RParen);
          this.ACTION(() => this.openParens.pop());
          return inner;
        },
      },
    ]),
  );

  nameOrCall = this.RULE("nameOrCall", (): Syntax => {
    const nameToken = this.CONSUME(Name);
    let args: Syntax[] | undefined;
    this.OPTION(() => {
      const open = this.CONSUME(LParen);
      this.ACTION(() => this.openParens.push(open));
      args = [];
      // Arguments may be left empty, as in spreadsheets (IF(x,,1)): an empty one is a blank.
      let pending: Syntax | undefined;
      let afterComma: IToken | undefined;
      this.OPTION2(() => {
        pending = this.SUBRULE(this.comparison);
      });
      this.MANY(() => {
        const comma = this.CONSUME(Comma);
        this.ACTION(() => args!.push(pending ?? { kind: "literal", value: null, at: at(comma) }));
        pending = undefined;
        afterComma = comma;
        this.OPTION3(() => {
          pending = this.SUBRULE2(this.comparison);
        });
      });
      this.CONSUME(RParen);
      this.ACTION(() => {
        this.openParens.pop();
        if (pending) args!.push(pending);
        else if (afterComma) args!.push({ kind: "literal", value: null, at: at(afterComma) });
      });
    });
    return this.ACTION(() =>
      args === undefined
        ? { kind: "name", name: nameToken.image, at: at(nameToken) }
        : { kind: "call", name: nameToken.image, args, at: at(nameToken) },
    );
  });
}

/** Percent without binary noise where it can: 7% is 0.07, not 0.07000000000000001. */
export function percentOf(n: number): number {
  return Number((n / 100).toPrecision(15));
}

function unescapeName(inner: string): string {
  return inner.replace(/\\([\s\S])/g, "$1");
}

function columnRefSyntax(t: IToken): Syntax {
  const inner = t.image.slice(1, -1);
  if (inner.startsWith("#")) return { kind: "ref", id: inner.slice(1).trim(), at: at(t) };
  return { kind: "ref", name: unescapeName(inner), at: at(t) };
}

/** Builds the parser with Chevrotain's grammar checks on: throws if the grammar is ambiguous or malformed. */
export function checkGrammar(): void {
  new FormulaParser(true);
}

let parserInstance: FormulaParser | undefined;
function parser(): FormulaParser {
  parserInstance ??= new FormulaParser();
  return parserInstance;
}

/** The text as a positioned syntax tree, or throws FormulaSyntaxError with the first syntax problem. */
export function parseSyntax(text: string): Syntax {
  // A leading = (as typed in a spreadsheet cell) is accepted and means nothing; blanked so positions stay put.
  const source = text.replace(/^(\s*)=/, "$1 ");
  if (source.trim() === "") throw new FormulaSyntaxError([{ line: 1, column: 1, message: "The formula is empty" }]);
  const lexed = lexer.tokenize(source);
  if (lexed.errors.length > 0) throw new FormulaSyntaxError([lexingProblem(text, lexed.errors[0]!.offset)]);
  // Each value is a node of the tree: past the node bound the formula is refused before it is parsed, which
  // also keeps the parse and the passes over its tree shallow.
  const values = lexed.tokens.filter((t) => VALUE_TOKENS.has(t.tokenType));
  if (values.length > MAX_FORMULA_NODES) {
    throw new FormulaSyntaxError([
      { ...at(values[MAX_FORMULA_NODES]!), message: `The formula has more than ${MAX_FORMULA_NODES} parts` },
    ]);
  }
  const p = parser();
  p.openParens = [];
  p.input = lexed.tokens;
  const tree = p.formula();
  if (p.errors.length > 0)
    throw new FormulaSyntaxError([parsingProblem(text, p.errors[0]!, p.openParens, lexed.tokens)]);
  return tree;
}
