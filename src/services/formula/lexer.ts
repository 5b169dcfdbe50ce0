/**
 * The tokens of the formula text language (docs/api-guide.md, "Formulas as text") and the Chevrotain lexer over
 * them, with positions: every token carries its 1-based line and column. The parser that reads the tokens is in
 * ./text.ts.
 */
import { createToken, Lexer, type IToken, type TokenType } from "chevrotain";

export interface Position {
  line: number;
  column: number;
}

export const at = (t: IToken): Position => ({ line: t.startLine ?? 1, column: t.startColumn ?? 1 });

export const CONSTANT = String.raw`[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?|"(?:[^"]|"")*"|[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]`;
/** `{1, 2; 3, 4}`: constants with at least one separator. Anything else in braces names a column. */
const ARRAY_PATTERN = new RegExp(String.raw`\{\s*(?:${CONSTANT})\s*(?:[,;]\s*(?:${CONSTANT})\s*)+\}`);
const ARRAY_WHOLE = new RegExp(`^${ARRAY_PATTERN.source}$`);

const WhiteSpace = createToken({ name: "WhiteSpace", pattern: /\s+/, group: Lexer.SKIPPED, line_breaks: true });
export const ArrayConstant = createToken({ name: "ArrayConstant", pattern: ARRAY_PATTERN, line_breaks: true });
export const ColumnRef = createToken({ name: "ColumnRef", pattern: /\{(?:\\[\s\S]|[^\\}])*\}/, line_breaks: true });
export const StringLit = createToken({ name: "StringLit", pattern: /"(?:[^"]|"")*"/, line_breaks: true });
export const NumberLit = createToken({ name: "NumberLit", pattern: /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/ });
export const Name = createToken({ name: "Name", pattern: /[A-Za-z_][A-Za-z0-9_.]*/ });
export const LParen = createToken({ name: "LParen", pattern: "(", label: "(" });
export const RParen = createToken({ name: "RParen", pattern: ")", label: ")" });
export const Comma = createToken({ name: "Comma", pattern: ",", label: "," });
export const CompareOp = createToken({ name: "CompareOp", pattern: /<>|<=|>=|<|>|=/, label: "a comparison" });
export const Amp = createToken({ name: "Amp", pattern: "&", label: "&" });
export const Plus = createToken({ name: "Plus", pattern: "+", label: "+" });
export const Minus = createToken({ name: "Minus", pattern: "-", label: "-" });
export const Star = createToken({ name: "Star", pattern: "*", label: "*" });
export const Slash = createToken({ name: "Slash", pattern: "/", label: "/" });
export const Caret = createToken({ name: "Caret", pattern: "^", label: "^" });
export const Percent = createToken({ name: "Percent", pattern: "%", label: "%" });

export const TOKENS: TokenType[] = [
  WhiteSpace,
  ArrayConstant,
  ColumnRef,
  StringLit,
  NumberLit,
  Name,
  LParen,
  RParen,
  Comma,
  CompareOp,
  Amp,
  Plus,
  Minus,
  Star,
  Slash,
  Caret,
  Percent,
];

export const VALUE_TOKENS = new Set<TokenType>([ArrayConstant, ColumnRef, StringLit, NumberLit, Name]);

export const lexer = new Lexer(TOKENS, { positionTracking: "full", ensureOptimizations: false });

/** Whether `{inner}` would read as an array constant (a column so named must be escaped). */
export function looksLikeArrayConstant(inner: string): boolean {
  return ARRAY_WHOLE.test(`{${inner}}`);
}
