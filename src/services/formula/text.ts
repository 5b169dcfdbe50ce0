/**
 * The formula text language (docs/api-guide.md, "Formulas as text"): text → the compiled tree of expression.ts.
 *
 * Built on Chevrotain rather than Ohm: Chevrotain is plain TypeScript (no grammar compiled from a string at
 * run time, no eval, so it runs in a Worker as is), it gives every token its 1-based line and column, its
 * parsers are among the fastest in JavaScript, and it is actively kept (Langium builds on it). Ohm's grammar
 * language is pleasant, but its trees need a separate semantics pass and its error positions are offsets only.
 *
 * Parsing is two steps: the Chevrotain parser here builds a positioned syntax tree (`Syntax`), then resolve.ts turns
 * it into an `Expr` against the table's columns and the function catalogue, collecting every problem it can
 * find (unknown column or function with suggestions, wrong argument count with the signature) with its line
 * and column. A syntax error (unbalanced brackets, a stray operator) stops at the first one.
 */
import { createToken, EmbeddedActionsParser, Lexer, type IRecognitionException, type IToken, type TokenType } from "chevrotain";
import type { BinaryOp } from "./expression";
import { MAX_FORMULA_NODES } from "./expression";

/** A problem a person can fix, at a 1-based line and column of the text. */
export interface FormulaProblem {
  line: number;
  column: number;
  message: string;
  suggestions?: string[];
}

export class FormulaSyntaxError extends Error {
  constructor(readonly problems: FormulaProblem[]) {
    super(problems[0]?.message ?? "Invalid formula");
  }
}

/** A column the text may name. */
export interface NamedColumn {
  id: string;
  name: string;
}

export interface Position {
  line: number;
  column: number;
}

// ---- tokens -------------------------------------------------------------------------------------------------

export const CONSTANT = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?|"(?:[^"]|"")*"|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]`;
/** `{1, 2; 3, 4}`: constants with at least one separator. Anything else in braces names a column. */
const ARRAY_PATTERN = new RegExp(String.raw`\{\s*(?:${CONSTANT})\s*(?:[,;]\s*(?:${CONSTANT})\s*)+\}`);
const ARRAY_WHOLE = new RegExp(`^${ARRAY_PATTERN.source}$`);

const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /\s+/, group: Lexer.SKIPPED, line_breaks: true });
const ArrayConstant = createToken({ name: "ArrayConstant", pattern: ARRAY_PATTERN, line_breaks: true });
const ColumnRef = createToken({ name: "ColumnRef", pattern: /\{(?:\\[\s\S]|[^\\}])*\}/, line_breaks: true });
const StringLit = createToken({ name: "StringLit", pattern: /"(?:[^"]|"")*"/, line_breaks: true });
const NumberLit = createToken({ name: "NumberLit", pattern: /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/ });
const Name = createToken({ name: "Name", pattern: /[A-Za-z_][A-Za-z0-9_.]*/ });
const LParen = createToken({ name: "LParen", pattern: "(", label: "(" });
const RParen = createToken({ name: "RParen", pattern: ")", label: ")" });
const Comma = createToken({ name: "Comma", pattern: ",", label: "," });
const CompareOp = createToken({ name: "CompareOp", pattern: /<>|<=|>=|<|>|=/, label: "a comparison" });
const Amp = createToken({ name: "Amp", pattern: "&", label: "&" });
const Plus = createToken({ name: "Plus", pattern: "+", label: "+" });
const Minus = createToken({ name: "Minus", pattern: "-", label: "-" });
const Star = createToken({ name: "Star", pattern: "*", label: "*" });
const Slash = createToken({ name: "Slash", pattern: "/", label: "/" });
const Caret = createToken({ name: "Caret", pattern: "^", label: "^" });
const Percent = createToken({ name: "Percent", pattern: "%", label: "%" });

const TOKENS: TokenType[] = [
  WhiteSpace, ArrayConstant, ColumnRef, StringLit, NumberLit, Name, LParen, RParen, Comma, CompareOp, Amp, Plus, Minus, Star,
  Slash, Caret, Percent,
];

const VALUE_TOKENS = new Set<TokenType>([ArrayConstant, ColumnRef, StringLit, NumberLit, Name]);

const lexer = new Lexer(TOKENS, { positionTracking: "full", ensureOptimizations: false });

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

const at = (t: IToken): Position => ({ line: t.startLine ?? 1, column: t.startColumn ?? 1 });

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
  private multiplicativeOp = (): IToken => this.OR1([{ ALT: () => this.CONSUME(Star) }, { ALT: () => this.CONSUME(Slash) }]);

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
      args === undefined ? { kind: "name", name: nameToken.image, at: at(nameToken) } : { kind: "call", name: nameToken.image, args, at: at(nameToken) },
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

/** Line and column of a character offset in `text`. */
export function positionAt(text: string, offset: number): Position {
  let line = 1;
  let column = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === "\n") {
      line += 1;
      column = 1;
    } else column += 1;
  }
  return { line, column };
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
    throw new FormulaSyntaxError([{ ...at(values[MAX_FORMULA_NODES]!), message: `The formula has more than ${MAX_FORMULA_NODES} parts` }]);
  }
  const p = parser();
  p.openParens = [];
  p.input = lexed.tokens;
  const tree = p.formula();
  if (p.errors.length > 0) throw new FormulaSyntaxError([parsingProblem(text, p.errors[0]!, p.openParens, lexed.tokens)]);
  return tree;
}

function lexingProblem(text: string, offset: number): FormulaProblem {
  const pos = positionAt(text, offset);
  const ch = text[offset]!;
  if (ch === '"') return { ...pos, message: `Unbalanced quotes: the text starting at line ${pos.line}, column ${pos.column} has no closing "` };
  if (ch === "{") return { ...pos, message: `Unbalanced braces: the { at line ${pos.line}, column ${pos.column} is never closed by }` };
  if (ch === "}") return { ...pos, message: `Unbalanced braces: the } at line ${pos.line}, column ${pos.column} has no matching {` };
  if (ch === "[" || ch === "]") return { ...pos, message: `Unexpected ${ch}: a column is written in braces, {Column name}` };
  if ("“”„‟″".includes(ch)) return { ...pos, message: `Unexpected ${ch}: text is written in straight double quotes, "like this"` };
  if (ch === "'") return { ...pos, message: `Unexpected ': text is written in double quotes, "like this"` };
  if (ch === ";") return { ...pos, message: "Unexpected ;: arguments are separated by commas" };
  return { ...pos, message: `Unexpected character ${JSON.stringify(ch)}` };
}

function describeToken(t: IToken): string {
  if (t.tokenType.name === "EOF") return "the end of the formula";
  return JSON.stringify(t.image.length > 40 ? `${t.image.slice(0, 40)}…` : t.image);
}

function parsingProblem(text: string, error: IRecognitionException, openParens: IToken[], tokens: IToken[]): FormulaProblem {
  // Unbalanced parentheses first: whatever the parser tripped on, that is the problem to fix.
  let depth = 0;
  const opened: IToken[] = [];
  for (const t of tokens) {
    if (t.tokenType === LParen) opened.push(t);
    else if (t.tokenType === RParen) {
      const open = opened.pop();
      if (!open) {
        const pos = at(t);
        return { ...pos, message: `Unbalanced parentheses: the ) at line ${pos.line}, column ${pos.column} has no matching (` };
      }
    }
    depth = opened.length;
  }
  if (depth > 0) {
    const open = openParens.at(-1) ?? opened.at(-1)!;
    const pos = at(open);
    return { ...pos, message: `Unbalanced parentheses: the ( at line ${pos.line}, column ${pos.column} is never closed by )` };
  }
  const t = error.token;
  const isEnd = t.tokenType.name === "EOF" || Number.isNaN(t.startOffset);
  const pos = isEnd ? positionAt(text, text.length) : at(t);
  if (isEnd) return { ...pos, message: "The formula ends too soon: a value is missing after the last operator" };
  if (error.name === "NotAllInputParsedException") {
    return { ...pos, message: `Unexpected ${describeToken(t)} at line ${pos.line}, column ${pos.column}: an operator or a comma is missing before it` };
  }
  return { ...pos, message: `Unexpected ${describeToken(t)} at line ${pos.line}, column ${pos.column}: a value was expected` };
}

/** Whether `{inner}` would read as an array constant (a column so named must be escaped). */
export function looksLikeArrayConstant(inner: string): boolean {
  return ARRAY_WHOLE.test(`{${inner}}`);
}
