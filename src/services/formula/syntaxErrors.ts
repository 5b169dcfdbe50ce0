/**
 * Formula text problems (docs/api-guide.md, "Formulas as text"): a problem at its line and column, the error that
 * carries them, and the wording of the first syntax error the lexer (./lexer.ts) or the parser (./text.ts) meets —
 * unbalanced quotes, braces or parentheses first, then what was expected where.
 */
import type { IRecognitionException, IToken } from "chevrotain";
import { at, LParen, RParen, type Position } from "./lexer";

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

export function lexingProblem(text: string, offset: number): FormulaProblem {
  const pos = positionAt(text, offset);
  const ch = text[offset]!;
  if (ch === '"')
    return {
      ...pos,
      message: `Unbalanced quotes: the text starting at line ${pos.line}, column ${pos.column} has no closing "`,
    };
  if (ch === "{")
    return {
      ...pos,
      message: `Unbalanced braces: the { at line ${pos.line}, column ${pos.column} is never closed by }`,
    };
  if (ch === "}")
    return { ...pos, message: `Unbalanced braces: the } at line ${pos.line}, column ${pos.column} has no matching {` };
  if (ch === "[" || ch === "]")
    return { ...pos, message: `Unexpected ${ch}: a column is written in braces, {Column name}` };
  if ("“”„‟″".includes(ch))
    return { ...pos, message: `Unexpected ${ch}: text is written in straight double quotes, "like this"` };
  if (ch === "'") return { ...pos, message: `Unexpected ': text is written in double quotes, "like this"` };
  if (ch === ";") return { ...pos, message: "Unexpected ;: arguments are separated by commas" };
  return { ...pos, message: `Unexpected character ${JSON.stringify(ch)}` };
}

function describeToken(t: IToken): string {
  if (t.tokenType.name === "EOF") return "the end of the formula";
  return JSON.stringify(t.image.length > 40 ? `${t.image.slice(0, 40)}…` : t.image);
}

export function parsingProblem(
  text: string,
  error: IRecognitionException,
  openParens: IToken[],
  tokens: IToken[],
): FormulaProblem {
  // Unbalanced parentheses first: whatever the parser tripped on, that is the problem to fix.
  let depth = 0;
  const opened: IToken[] = [];
  for (const t of tokens) {
    if (t.tokenType === LParen) opened.push(t);
    else if (t.tokenType === RParen) {
      const open = opened.pop();
      if (!open) {
        const pos = at(t);
        return {
          ...pos,
          message: `Unbalanced parentheses: the ) at line ${pos.line}, column ${pos.column} has no matching (`,
        };
      }
    }
    depth = opened.length;
  }
  if (depth > 0) {
    const open = openParens.at(-1) ?? opened.at(-1)!;
    const pos = at(open);
    return {
      ...pos,
      message: `Unbalanced parentheses: the ( at line ${pos.line}, column ${pos.column} is never closed by )`,
    };
  }
  const t = error.token;
  const isEnd = t.tokenType.name === "EOF" || Number.isNaN(t.startOffset);
  const pos = isEnd ? positionAt(text, text.length) : at(t);
  if (isEnd) return { ...pos, message: "The formula ends too soon: a value is missing after the last operator" };
  if (error.name === "NotAllInputParsedException") {
    return {
      ...pos,
      message: `Unexpected ${describeToken(t)} at line ${pos.line}, column ${pos.column}: an operator or a comma is missing before it`,
    };
  }
  return {
    ...pos,
    message: `Unexpected ${describeToken(t)} at line ${pos.line}, column ${pos.column}: a value was expected`,
  };
}
