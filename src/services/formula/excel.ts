/**
 * Spreadsheet functions with Excel's documented semantics where @formulajs/formulajs departs from them or lacks
 * them (docs/api-guide.md › Formulas). Each entry replaces the library's function of that name in the
 * catalogue, or adds one the library does not have. Wherever the library has a correct routine (distributions,
 * PERCENTILE.INC, YEARFRAC) it is reused; only the semantics around it (optional arguments, which arguments
 * count, error cases) are written here.
 *
 * Arguments arrive as evaluator values: numbers, text, booleans, null (blank), errors (for the functions that
 * look at errors), dates as serial numbers, and arrays (a list, or rows of an array constant). A function with
 * `references: true` receives every column read as a one-item array, since a column of the row is a cell
 * reference: Excel's aggregates count only the numbers of a reference but coerce values typed as arguments
 * (`SUM("3", TRUE)` is 4, `SUM({Text column})` ignores its text).
 */
import * as formulajs from "@formulajs/formulajs";
import { MONTHS, parseNumberText } from "./parseText";
import { Errors, formulaError, numberText, toText, type FormulaValue } from "./values";

export interface ExcelFunction {
  min: number;
  max: number;
  impl: (...args: unknown[]) => unknown;
  /** Column reads arrive as one-item arrays (reference semantics). */
  references?: boolean;
  /** Errors arrive as arguments instead of failing the call first. */
  errorAware?: boolean;
  /** Arguments come in pairs after `min` (LET's name/value pairs). */
  pairs?: boolean;
}

const MANY = Number.POSITIVE_INFINITY;
type V = unknown;
const isErr = (v: V): v is Error => v instanceof Error;
const calc = formulaError("#CALC!");

// ---- coercion -------------------------------------------------------------------------------------------------

const MS_PER_DAY = 86_400_000;
const EPOCH = 25_569;
const serialToDate = (serial: number) => new Date(Math.round((serial - EPOCH) * MS_PER_DAY));
const dateSerial = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / MS_PER_DAY + EPOCH;


/** A value typed as an argument, as a number: TRUE is 1, numeric text its number, blank 0, other text #VALUE!. */
function argNumber(v: V): number | Error {
  if (typeof v === "number") return v;
  if (typeof v === "boolean") return v ? 1 : 0;
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return parseNumberText(v) ?? Errors.value;
  if (v instanceof Date) return v.getTime() / MS_PER_DAY + EPOCH;
  if (isErr(v)) return v;
  if (Array.isArray(v)) return v.length > 0 ? argNumber(flat(v)[0]) : Errors.value;
  return Errors.value;
}

/** An optional numeric argument: its number, or `fallback` when omitted or blank. */
function optNumber(v: V, fallback: number): number | Error {
  return v === undefined || v === null ? fallback : argNumber(v);
}

function flat(v: V): V[] {
  if (!Array.isArray(v)) return [v];
  const out: V[] = [];
  const walk = (x: V) => (Array.isArray(x) ? x.forEach(walk) : out.push(x));
  walk(v);
  return out;
}

/**
 * The numbers of an aggregate's arguments, Excel-style: in an array (a reference or list) only numbers count;
 * an argument typed directly counts as its number (TRUE 1, "3" 3), and text that is no number is #VALUE!.
 */
function numbersOf(args: V[], opts: { skipBadText?: boolean } = {}): number[] | Error {
  const out: number[] = [];
  for (const a of args) {
    if (a === undefined) continue;
    if (Array.isArray(a)) {
      for (const x of flat(a)) {
        if (isErr(x)) return x;
        if (typeof x === "number") out.push(x);
        else if (x instanceof Date) out.push(x.getTime() / MS_PER_DAY + EPOCH);
      }
      continue;
    }
    if (a === null) continue;
    if (typeof a === "string" && opts.skipBadText && parseNumberText(a) === undefined) continue;
    const n = argNumber(a);
    if (isErr(n)) return n;
    out.push(n);
  }
  return out;
}

const withNumbers = (f: (xs: number[]) => V) => (...args: V[]) => {
  const xs = numbersOf(args);
  return isErr(xs) ? xs : f(xs);
};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const mean = (xs: number[]) => sum(xs) / xs.length;
function variance(xs: number[], sample: boolean): number | Error {
  const n = xs.length;
  if (n < (sample ? 2 : 1)) return Errors.div0;
  const m = mean(xs);
  return sum(xs.map((x) => (x - m) ** 2)) / (sample ? n - 1 : n);
}
const std = (sample: boolean) => withNumbers((xs) => {
  const v = variance(xs, sample);
  return isErr(v) ? v : Math.sqrt(v);
});
const vari = (sample: boolean) => withNumbers((xs) => variance(xs, sample));

function modeSingle(xs: number[]): V {
  const counts = new Map<number, number>();
  let best: number | undefined;
  let bestCount = 1;
  for (const x of xs) {
    const c = (counts.get(x) ?? 0) + 1;
    counts.set(x, c);
    if (c > bestCount) {
      bestCount = c;
      best = x;
    }
  }
  // Ties go to the value that occurs first (Excel): recount in order.
  if (best === undefined) return Errors.na;
  for (const x of xs) if (counts.get(x) === bestCount) return x;
  return best;
}

// ---- lookups --------------------------------------------------------------------------------------------------

/**
 * Excel's wildcards (`?` one character, `*` any run, `~` escapes the next `?`, `*` or `~`), matched without a
 * backtracking regular expression (a pattern such as `*a*a*a*b` would take exponential time): the pattern is
 * split at its stars into segments, each found leftmost after the previous one, which is linear in the text
 * for each segment. Case-insensitive.
 */
type Segment = Array<string | null>; // null: any one character
function wildcardSegments(pattern: string): Segment[] {
  const segs: Segment[] = [[]];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "~" && i + 1 < pattern.length && "?*~".includes(pattern[i + 1]!)) segs[segs.length - 1]!.push(pattern[++i]!.toLowerCase());
    else if (c === "?") segs[segs.length - 1]!.push(null);
    else if (c === "*") segs.push([]);
    else segs[segs.length - 1]!.push(c.toLowerCase());
  }
  return segs;
}
const segmentAt = (seg: Segment, text: string, at: number) => {
  if (at + seg.length > text.length) return false;
  for (let k = 0; k < seg.length; k++) if (seg[k] !== null && seg[k] !== text[at + k]) return false;
  return true;
};
const segmentFrom = (seg: Segment, text: string, from: number, to = text.length) => {
  for (let at = from; at + seg.length <= to; at++) if (segmentAt(seg, text, at)) return at;
  return -1;
};

/** Whether the whole of `text` matches the wildcard pattern. */
export function wildcardWhole(pattern: string, text: string): boolean {
  const segs = wildcardSegments(pattern);
  const t = text.toLowerCase();
  if (segs.length === 1) return segs[0]!.length === t.length && segmentAt(segs[0]!, t, 0);
  const first = segs[0]!;
  const last = segs[segs.length - 1]!;
  if (first.length + last.length > t.length || !segmentAt(first, t, 0) || !segmentAt(last, t, t.length - last.length)) return false;
  let pos = first.length;
  const end = t.length - last.length;
  for (let i = 1; i < segs.length - 1; i++) {
    const at = segmentFrom(segs[i]!, t, pos, end);
    if (at < 0) return false;
    pos = at + segs[i]!.length;
  }
  return true;
}

/** The first position (0-based) at or after `from` where the pattern matches, or -1 (SEARCH). */
export function wildcardSearch(pattern: string, text: string, from: number): number {
  const segs = wildcardSegments(pattern);
  const t = text.toLowerCase();
  // The leftmost start of the first segment; if the rest cannot follow it, it cannot follow a later start either.
  const start = segmentFrom(segs[0]!, t, from);
  if (start < 0) return -1;
  let pos = start + segs[0]!.length;
  for (let i = 1; i < segs.length; i++) {
    const at = segmentFrom(segs[i]!, t, pos);
    if (at < 0) return -1;
    pos = at + segs[i]!.length;
  }
  return start;
}

/** Excel's ordering of lookup values: numbers < text < booleans; text case-insensitive. */
function order(a: V, b: V): number {
  const rank = (v: V) => (typeof v === "number" ? 0 : typeof v === "string" ? 1 : typeof v === "boolean" ? 2 : 3);
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "string") {
    const x = a.toLowerCase();
    const y = (b as string).toLowerCase();
    return x < y ? -1 : x > y ? 1 : 0;
  }
  const x = Number(a);
  const y = Number(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
const sameKind = (a: V, b: V) => typeof a === typeof b && a !== null;

/**
 * The position (0-based) of `value` in `list` per XMATCH's match_mode (0 exact, -1 exact or next smaller,
 * 1 exact or next larger, 2 wildcard) and search_mode (1 first to last, -1 last to first; 2/-2 binary, which
 * gives the same answers on sorted data); -1 when none.
 */
function xmatch(value: V, list: V[], mode: number, search: number): number {
  const idx = list.map((_, i) => i);
  if (search < 0) idx.reverse();
  const wild = mode === 2 && typeof value === "string" ? value : null;
  let best = -1;
  for (const i of idx) {
    const item = list[i];
    if (wild !== null) {
      if (typeof item === "string" && wildcardWhole(wild, item)) return i;
      continue;
    }
    if (!sameKind(item, value)) continue;
    const c = order(item, value);
    if (c === 0) return i;
    if (mode === -1 && c < 0 && (best < 0 || order(item, list[best]) > 0)) best = i;
    if (mode === 1 && c > 0 && (best < 0 || order(item, list[best]) < 0)) best = i;
  }
  return best;
}

/** MATCH's approximate modes: the last position whose value is ≤ (type 1) or ≥ (type -1) the value, data sorted. */
function approximateMatch(value: V, list: V[], type: number): number {
  let found = -1;
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!sameKind(item, value)) continue;
    const c = order(item, value);
    if (type === 1 ? c <= 0 : c >= 0) found = i;
    else break;
  }
  return found;
}

/** Rows of a value: a 2-D array constant as is, a list as one column... of one row (a row vector). */
function rowsOf(v: V): V[][] {
  if (!Array.isArray(v)) return [[v]];
  if (v.length > 0 && v.every(Array.isArray)) return v as V[][];
  return [v];
}

/** Picks position `i` of the lookup vector out of the result array, keeping Excel's row/column sense. */
function pickFrom(result: V, lookupRows: V[][], i: number): V {
  const rows = rowsOf(result);
  const vertical = lookupRows.length > 1;
  if (vertical) return rows.length === 1 && rows[0]!.length > 1 ? rows[0]![i] : rows[i]?.length === 1 ? rows[i]![0] : rows[i];
  return rows.length === 1 ? rows[0]![i] : rows.map((r) => r[i]);
}

function vlookup(value: V, table: V, col: V, approx: V, transpose: boolean): V {
  let rows = rowsOf(table);
  if (transpose) rows = rows[0]!.map((_, c) => rows.map((r) => r[c]));
  const k = argNumber(col);
  if (isErr(k)) return k;
  const index = Math.trunc(k);
  if (index < 1) return Errors.value;
  if (index > (rows[0]?.length ?? 0)) return Errors.ref;
  const keys = rows.map((r) => r[0]);
  const a = approx === undefined || approx === null ? true : approx === true || (typeof approx === "number" && approx !== 0);
  const i = a ? approximateMatch(value, keys, 1) : xmatch(value, keys, typeof value === "string" ? 2 : 0, 1);
  return i < 0 ? Errors.na : (rows[i]![index - 1] ?? null);
}

// ---- text -----------------------------------------------------------------------------------------------------

function search(find: V, within: V, start: V): V {
  const f = toText((find ?? null) as FormulaValue);
  const w = toText((within ?? null) as FormulaValue);
  if (isErr(f)) return f;
  if (isErr(w)) return w;
  const s = optNumber(start, 1);
  if (isErr(s)) return s;
  const from = Math.trunc(s);
  if (from < 1 || from > w.length + (w.length === 0 ? 1 : 0)) return Errors.value;
  if (f === "") return from;
  const at = wildcardSearch(f, w, from - 1);
  return at < 0 ? Errors.value : at + 1;
}

function proper(v: V): V {
  const t = toText((v ?? null) as FormulaValue);
  if (isErr(t)) return t;
  let out = "";
  let afterLetter = false;
  for (const ch of t) {
    const letter = ch.toLowerCase() !== ch.toUpperCase();
    out += letter ? (afterLetter ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    afterLetter = letter;
  }
  return out;
}

function value(v: V): V {
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return parseNumberText(v) ?? Errors.value;
  if (v instanceof Date) return v.getTime() / MS_PER_DAY + EPOCH;
  return Errors.value;
}

/** TEXTBEFORE / TEXTAFTER. */
function textAround(after: boolean) {
  return (text: V, delimiter: V, instance: V, matchMode: V, matchEnd: V, ifNotFound: V): V => {
    const t = toText((text ?? null) as FormulaValue);
    if (isErr(t)) return t;
    const delims = flat(delimiter).map((d) => toText((d ?? null) as FormulaValue));
    for (const d of delims) if (isErr(d)) return d;
    const n = optNumber(instance, 1);
    if (isErr(n)) return n;
    const k = Math.trunc(n);
    if (k === 0 || Math.abs(k) > t.length + 1) return Errors.value;
    const insensitive = optNumber(matchMode, 0) === 1;
    const end = optNumber(matchEnd, 0) === 1;
    const hay = insensitive ? t.toLowerCase() : t;
    // Every match position (start, length), left to right, not overlapping.
    const found: Array<[number, number]> = [];
    for (let i = 0; i <= hay.length; ) {
      let hit: [number, number] | undefined;
      for (const d of delims as string[]) {
        const needle = insensitive ? d.toLowerCase() : d;
        if (needle === "" ? true : hay.startsWith(needle, i)) {
          hit = [i, needle.length];
          break;
        }
      }
      if (hit) {
        found.push(hit);
        i += Math.max(1, hit[1]);
      } else i++;
    }
    if (delims.every((d) => d === "")) return after ? (k > 0 ? t : "") : k > 0 ? "" : t;
    if (end) {
      if (k > 0) found.push([t.length, 0]);
      else found.unshift([0, 0]);
    }
    const hit = k > 0 ? found[k - 1] : found[found.length + k];
    if (!hit) return ifNotFound === undefined ? Errors.na : ifNotFound;
    return after ? t.slice(hit[0] + hit[1]) : t.slice(0, hit[0]);
  };
}

function textSplit(text: V, colDelim: V, rowDelim: V, ignoreEmpty: V, matchMode: V, padWith: V): V {
  const t = toText((text ?? null) as FormulaValue);
  if (isErr(t)) return t;
  const insensitive = optNumber(matchMode, 0) === 1;
  const toDelims = (v: V) => (v === undefined || v === null ? [] : flat(v).map((d) => String(toText(d as FormulaValue))).filter((d) => d !== ""));
  const cols = toDelims(colDelim);
  const rowsD = toDelims(rowDelim);
  if (cols.length === 0 && rowsD.length === 0) return Errors.value;
  const splitter = (ds: string[]) => (ds.length ? new RegExp(ds.map((d) => d.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"), insensitive ? "gi" : "g") : null);
  const rowRe = splitter(rowsD);
  const colRe = splitter(cols);
  const skip = ignoreEmpty === true || (typeof ignoreEmpty === "number" && ignoreEmpty !== 0);
  let rows = (rowRe ? t.split(rowRe) : [t]).map((r) => (colRe ? r.split(colRe) : [r]));
  if (skip) rows = rows.map((r) => r.filter((x) => x !== "")).filter((r) => r.length > 0);
  let width = 0;
  for (const r of rows) width = Math.max(width, r.length);
  // Padding can multiply the items (many rows, one long one): past the array cap the result is #LIMIT!.
  if (rows.length * width > 10_000) return formulaError("#LIMIT!");
  const pad = padWith === undefined ? Errors.na : padWith;
  return rows.map((r) => [...r, ...Array<V>(width - r.length).fill(pad)]);
}

// ---- TEXT format codes ----------------------------------------------------------------------------------------

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

function splitSections(format: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '"') {
      const j = format.indexOf('"', i + 1);
      const end = j < 0 ? format.length : j;
      cur += format.slice(i, end + 1);
      i = end;
    } else if (c === "\\") {
      cur += format.slice(i, i + 2);
      i++;
    } else if (c === ";") {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

type Piece = { lit: string } | { code: string };

/** A section as literal pieces and code runs. */
function tokenize(section: string): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < section.length; i++) {
    const c = section[i]!;
    if (c === '"') {
      const j = section.indexOf('"', i + 1);
      const end = j < 0 ? section.length : j;
      out.push({ lit: section.slice(i + 1, end) });
      i = end;
    } else if (c === "\\") {
      out.push({ lit: section[i + 1] ?? "" });
      i++;
    } else if (c === "_") {
      out.push({ lit: " " });
      i++;
    } else if (c === "*") i++;
    else if (c === "[") {
      const j = section.indexOf("]", i);
      i = j < 0 ? section.length : j; // colours and conditions are ignored
    } else out.push({ code: c });
  }
  return out;
}

const isDateSection = (pieces: Piece[]) => {
  const codes = pieces.map((p) => ("code" in p ? p.code : " ")).join("").toLowerCase();
  return /[ydhs]|am\/pm|a\/p/.test(codes.replace(/e[+-]/g, "")) || (/m/.test(codes) && !/[0#?]/.test(codes));
};

function formatDate(serial: number, pieces: Piece[]): string | Error {
  if (serial < 0) return Errors.value;
  const whole = Math.floor(serial);
  let secs = Math.round((serial - whole) * 86_400);
  let day = whole;
  if (secs >= 86_400) {
    day += 1;
    secs -= 86_400;
  }
  const d = serialToDate(day);
  const Y = d.getUTCFullYear(), M = d.getUTCMonth(), D = d.getUTCDate(), W = d.getUTCDay();
  const h = Math.floor(secs / 3600), mi = Math.floor((secs % 3600) / 60), s = secs % 60;
  const code = pieces.map((p) => ("code" in p ? p.code : `\u0000${p.lit}\u0001`)).join("");
  const ampm = /am\/pm|a\/p/i.test(code);
  // Tokens in order, so an `m` after `h` or before `s` is minutes.
  const re = /\u0000([^\u0001]*)\u0001|yyyy|yy|y|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am\/pm|a\/p|\.0+|./gi;
  const tokens: string[] = [];
  for (let m; (m = re.exec(code)); ) tokens.push(m[0]);
  const pad = (n: number, w = 2) => String(n).padStart(w, "0");
  // The nearest date/time token before and after each token (an `m` between `h` and `s` is minutes).
  const prevPart: Array<string | undefined> = [];
  const nextPart: Array<string | undefined> = [];
  let seen: string | undefined;
  tokens.forEach((t, i) => {
    prevPart[i] = seen;
    if (/^[hsdy]/i.test(t)) seen = t;
  });
  seen = undefined;
  for (let i = tokens.length - 1; i >= 0; i--) {
    nextPart[i] = seen;
    if (/^[hsdy]/i.test(tokens[i]!)) seen = tokens[i];
  }
  let out = "";
  tokens.forEach((tok, i) => {
    const lower = tok.toLowerCase();
    if (tok.startsWith("\u0000")) out += tok.slice(1, -1);
    else if (lower === "yyyy" || lower === "yyy") out += pad(Y, 4);
    else if (lower === "yy" || lower === "y") out += pad(Y % 100);
    else if (lower.startsWith("m") && !lower.startsWith("am")) {
      const prev = prevPart[i];
      const next = nextPart[i];
      const minute = lower.length <= 2 && ((prev && /^h/i.test(prev)) || (next && /^s/i.test(next)));
      if (minute) out += lower === "mm" ? pad(mi) : String(mi);
      else if (lower === "m") out += String(M + 1);
      else if (lower === "mm") out += pad(M + 1);
      else if (lower === "mmm") out += MONTHS[M]!.slice(0, 3).replace(/^./, (c) => c.toUpperCase());
      else if (lower === "mmmm") out += MONTHS[M]!.replace(/^./, (c) => c.toUpperCase());
      else out += MONTHS[M]![0]!.toUpperCase();
    } else if (lower === "d") out += String(D);
    else if (lower === "dd") out += pad(D);
    else if (lower === "ddd") out += DAY_NAMES[W]!.slice(0, 3);
    else if (lower === "dddd") out += DAY_NAMES[W];
    else if (lower === "h" || lower === "hh") {
      const hh = ampm ? (h % 12 === 0 ? 12 : h % 12) : h;
      out += lower === "hh" ? pad(hh) : String(hh);
    } else if (lower === "s") out += String(s);
    else if (lower === "ss") out += pad(s);
    else if (lower === "am/pm") out += h < 12 ? (tok[0] === "a" ? "am" : "AM") : tok[0] === "a" ? "pm" : "PM";
    else if (lower === "a/p") out += h < 12 ? (tok[0] === "a" ? "a" : "A") : tok[0] === "a" ? "p" : "P";
    else if (lower.startsWith(".0")) out += "." + "0".repeat(lower.length - 1);
    else out += tok;
  });
  return out;
}

function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

function formatNumber(n: number, pieces: Piece[], signed: boolean): string {
  const codes = pieces.map((p) => ("code" in p ? p.code : "")).join("");
  if (codes.toLowerCase() === "general" || !/[0#?]/.test(codes)) {
    const literal = pieces.map((p) => ("lit" in p ? p.lit : p.code)).join("");
    if (codes.toLowerCase().includes("general")) return literal.replace(/general/i, (signed && n < 0 ? "-" : "") + numberText(Math.abs(n)));
    return (signed && n < 0 ? "-" : "") + literal;
  }
  let x = Math.abs(n);
  const percents = (codes.match(/%/g) ?? []).length;
  x *= 100 ** percents;
  // The number pattern: from the first placeholder to the last, commas and points between them.
  const first = pieces.findIndex((p) => "code" in p && /[0#?]/.test(p.code));
  let last = first;
  for (let i = first; i < pieces.length; i++) {
    const p = pieces[i]!;
    if ("code" in p && /[0#?.,]/.test(p.code)) {
      if (/[0#?]/.test(p.code)) last = i;
    } else if ("code" in p && /[eE]/.test(p.code) && /[+-]/.test(String((pieces[i + 1] as { code?: string })?.code ?? ""))) {
      last = i + 1;
      i++;
    } else break;
  }
  while (last + 1 < pieces.length && "code" in pieces[last + 1]! && /[0#?,]/.test((pieces[last + 1] as { code: string }).code)) last++;
  const pattern = pieces.slice(first, last + 1).map((p) => ("code" in p ? p.code : "")).join("");
  // Trailing commas scale by thousands.
  let body = pattern;
  while (body.endsWith(",")) {
    body = body.slice(0, -1);
    x /= 1000;
  }
  let core: string;
  const sci = /^(.*?)[eE]([+-])(0+)$/.exec(body);
  if (sci) {
    const [intPat, fracPat = ""] = sci[1]!.split(".");
    const decimals = fracPat.length;
    const exp = x === 0 ? 0 : Math.floor(Math.log10(x));
    let mant = x === 0 ? 0 : x / 10 ** exp;
    let e = exp;
    if (Number(mant.toFixed(decimals)) >= 10) {
      mant /= 10;
      e += 1;
    }
    const m = mant.toFixed(decimals);
    const minInt = (intPat!.match(/0/g) ?? []).length;
    core = (minInt === 0 && m.startsWith("0") && x === 0 ? m.slice(1) : m) + "E" + (e < 0 ? "-" : sci[2] === "+" ? "+" : "") + String(Math.abs(e)).padStart(sci[3]!.length, "0");
  } else {
    const point = body.indexOf(".");
    const intPat = point < 0 ? body : body.slice(0, point);
    const fracPat = point < 0 ? "" : body.slice(point + 1).replace(/,/g, "");
    const minInt = (intPat.match(/0/g) ?? []).length;
    const minFrac = (fracPat.match(/0/g) ?? []).length;
    const maxFrac = (fracPat.match(/[0#?]/g) ?? []).length;
    const fixed = roundTo(x, maxFrac);
    let [ip = "0", fp = ""] = fixed.split(".");
    if (ip === "0" && minInt === 0) ip = "";
    ip = ip.padStart(minInt, "0");
    if (intPat.includes(",")) ip = groupThousands(ip);
    while (fp.length > minFrac && fp.endsWith("0")) fp = fp.slice(0, -1);
    core = ip + (point >= 0 ? "." + fp : "");
    x = Number(fixed);
  }
  const before = pieces.slice(0, first).map((p) => ("lit" in p ? p.lit : p.code)).join("");
  const after = pieces.slice(last + 1).map((p) => ("lit" in p ? p.lit : p.code)).join("");
  const negative = signed && n < 0 && x !== 0;
  return (negative ? "-" : "") + before + core + after;
}

/** x to `digits` decimals, rounding half away from zero on the decimal value Excel shows (15 digits). */
function roundTo(x: number, digits: number): string {
  const shown = Number(x.toPrecision(15));
  const f = 10 ** digits;
  const r = Math.round(shown * f + 1e-9 * Math.sign(shown)) / f;
  return r.toFixed(digits);
}

export function formatText(v: V, fmt: V): V {
  if (isErr(v)) return v;
  if (isErr(fmt)) return fmt;
  const format = toText((fmt ?? null) as FormulaValue);
  if (isErr(format)) return format;
  let x: number | undefined;
  if (typeof v === "number") x = v;
  else if (v instanceof Date) x = v.getTime() / MS_PER_DAY + EPOCH;
  else if (typeof v === "boolean") return v ? "TRUE" : "FALSE";
  else if (v === null || v === undefined) x = 0;
  else if (typeof v === "string") x = parseNumberText(v);
  const sections = splitSections(format);
  if (x === undefined) {
    // Text: the fourth section (with @ for the text), else the text itself.
    const textSection = sections[3] ?? (sections.length === 1 && sections[0]!.includes("@") ? sections[0] : undefined);
    const t = String(v);
    return textSection === undefined ? t : tokenize(textSection).map((p) => ("lit" in p ? p.lit : p.code === "@" ? t : p.code)).join("");
  }
  let section = sections[0]!;
  let signed = true;
  if (x < 0 && sections.length >= 2 && sections[1] !== "") {
    section = sections[1]!;
    signed = false;
  } else if (x === 0 && sections.length >= 3) section = sections[2]!;
  const pieces = tokenize(section);
  if (pieces.some((p) => "code" in p && p.code === "@")) {
    const shown = typeof v === "string" ? v : numberText(x);
    return pieces.map((p) => ("lit" in p ? p.lit : p.code === "@" ? shown : p.code)).join("");
  }
  if (isDateSection(pieces)) return formatDate(x, pieces);
  return formatNumber(x, pieces, signed);
}

// ---- statistics and lists ---------------------------------------------------------------------------------

function rank(num: V, ref: V, ord: V): V {
  const n = argNumber(num);
  if (isErr(n)) return n;
  const xs = flat(ref).filter((x): x is number => typeof x === "number");
  if (!xs.includes(n)) return Errors.na;
  const asc = optNumber(ord, 0);
  if (isErr(asc)) return asc;
  return 1 + xs.filter((x) => (asc !== 0 ? x < n : x > n)).length;
}

function kth(largest: boolean) {
  return (arr: V, k: V): V => {
    const xs = numbersOf([Array.isArray(arr) ? arr : [arr]]);
    if (isErr(xs)) return xs;
    const kk = argNumber(k);
    if (isErr(kk)) return kk;
    const i = Math.ceil(kk);
    if (i < 1 || i > xs.length) return Errors.num;
    xs.sort((a, b) => (largest ? b - a : a - b));
    return xs[i - 1];
  };
}

function sumProduct(...args: V[]): V {
  const lists = args.map((a) => flat(a));
  const n = lists[0]!.length;
  if (lists.some((l) => l.length !== n)) return Errors.value;
  let total = 0;
  for (let i = 0; i < n; i++) {
    let p = 1;
    for (const l of lists) {
      const x = l[i];
      if (isErr(x)) return x;
      p *= typeof x === "number" ? x : 0;
    }
    total += p;
  }
  return total;
}

function tTest(a: V, b: V, tails: V, type: V): V {
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  const ys = flat(b).filter((x): x is number => typeof x === "number");
  const tl = argNumber(tails);
  const ty = argNumber(type);
  if (isErr(tl)) return tl;
  if (isErr(ty)) return ty;
  const t1 = Math.trunc(tl);
  const t2 = Math.trunc(ty);
  if ((t1 !== 1 && t1 !== 2) || t2 < 1 || t2 > 3) return Errors.num;
  let t: number;
  let df: number;
  if (t2 === 1) {
    const fa = flat(a);
    const fb = flat(b);
    if (fa.length !== fb.length) return Errors.na;
    const d: number[] = [];
    fa.forEach((x, i) => {
      const y = fb[i];
      if (typeof x === "number" && typeof y === "number") d.push(x - y);
    });
    if (d.length < 2) return Errors.div0;
    const v = variance(d, true) as number;
    if (v === 0) return Errors.div0;
    t = mean(d) / Math.sqrt(v / d.length);
    df = d.length - 1;
  } else {
    if (xs.length < 2 || ys.length < 2) return Errors.div0;
    const vx = variance(xs, true) as number;
    const vy = variance(ys, true) as number;
    const nx = xs.length;
    const ny = ys.length;
    if (t2 === 2) {
      df = nx + ny - 2;
      const sp = ((nx - 1) * vx + (ny - 1) * vy) / df;
      t = (mean(xs) - mean(ys)) / Math.sqrt(sp * (1 / nx + 1 / ny));
    } else {
      const qx = vx / nx;
      const qy = vy / ny;
      t = (mean(xs) - mean(ys)) / Math.sqrt(qx + qy);
      df = (qx + qy) ** 2 / (qx ** 2 / (nx - 1) + qy ** 2 / (ny - 1));
    }
    if (!Number.isFinite(t)) return Errors.div0;
  }
  const oneTail = tRight(Math.abs(t), df);
  return t1 === 1 ? oneTail : 2 * oneTail;
}

/** Student's t right tail, for x ≥ 0 and any df > 0 (fractional in Welch's test). */
function tRight(x: number, df: number): number {
  const lib = formulajs as unknown as { T: { DIST: { RT: (x: number, df: number) => number } } };
  return lib.T.DIST.RT(x, df);
}

/** T.DIST as Excel defines it: the left-tailed distribution (cumulative) or the density. */
function tDist(x: V, deg: V, cumulative: V): V {
  const xv = argNumber(x);
  const d = argNumber(deg);
  if (isErr(xv)) return xv;
  if (isErr(d)) return d;
  const df = Math.trunc(d);
  if (df < 1) return Errors.num;
  const c = typeof cumulative === "number" ? cumulative !== 0 : Boolean(cumulative);
  if (c) return xv >= 0 ? 1 - tRight(xv, df) : tRight(-xv, df);
  const gammaln = (formulajs as unknown as { GAMMALN: (z: number) => number }).GAMMALN;
  return Math.exp(gammaln((df + 1) / 2) - gammaln(df / 2)) / Math.sqrt(df * Math.PI) * (1 + (xv * xv) / df) ** (-(df + 1) / 2);
}

function erf(x: number): number {
  return (formulajs as unknown as { ERF: (x: number) => number }).ERF(x);
}

// ---- dynamic arrays -------------------------------------------------------------------------------------------

function filterFn(array: V, include: V, ifEmpty: V): V {
  const rows = rowsOf(array);
  const keep = flat(include);
  for (const k of keep) if (isErr(k)) return k;
  const truthy = (k: V) => (typeof k === "number" ? k !== 0 : k === true);
  let out: V;
  if (rows.length > 1 && keep.length === rows.length) out = rows.filter((_, i) => truthy(keep[i]));
  else if (rows.length === 1 && keep.length === rows[0]!.length) out = rows[0]!.filter((_, i) => truthy(keep[i]));
  else return Errors.value;
  if ((out as V[]).length === 0) return ifEmpty === undefined ? calc : ifEmpty;
  return out;
}

function sortBy(array: V, ...keys: V[]): V {
  const rows = rowsOf(array);
  const items: V[] = rows.length === 1 ? rows[0]! : rows;
  const n = items.length;
  const sorts: Array<{ by: V[]; dir: number }> = [];
  for (let i = 0; i < keys.length; i += 2) {
    const by = flat(keys[i]);
    if (by.length !== n) return Errors.value;
    const d = optNumber(keys[i + 1], 1);
    if (isErr(d)) return d;
    if (d !== 1 && d !== -1) return Errors.value;
    sorts.push({ by, dir: d });
  }
  const idx = items.map((_, i) => i);
  idx.sort((a, b) => {
    for (const s of sorts) {
      const c = order(s.by[a], s.by[b]);
      if (c !== 0) return c * s.dir;
    }
    return a - b;
  });
  return idx.map((i) => items[i]);
}

function sequence(rows: V, cols: V, start: V, step: V): V {
  const r = argNumber(rows);
  const c = optNumber(cols, 1);
  const s = optNumber(start, 1);
  const st = optNumber(step, 1);
  for (const x of [r, c, s, st]) if (isErr(x)) return x;
  const nr = Math.trunc(r as number);
  const nc = Math.trunc(c as number);
  if (nr < 1 || nc < 1) return calc;
  const out: number[][] = [];
  for (let i = 0; i < nr; i++) out.push(Array.from({ length: nc }, (_, j) => (s as number) + (i * nc + j) * (st as number)));
  return out;
}

// ---- financial ------------------------------------------------------------------------------------------------

/** VDB: declining balance switching to straight line, over a (fractional) period range. */
function vdb(cost: V, salvage: V, life: V, start: V, end: V, factor: V, noSwitch: V): V {
  const nums = [cost, salvage, life, start, end].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [c, s, l, a, b] = nums as number[];
  const f = optNumber(factor, 2);
  if (isErr(f)) return f;
  const ns = noSwitch === true || (typeof noSwitch === "number" && noSwitch !== 0);
  if (c! < 0 || s! < 0 || l! <= 0 || a! < 0 || b! < a! || b! > l! || f < 0) return Errors.num;
  // The depreciation of each whole period (LibreOffice and Excel agree on this scheme), then the fractional ends.
  const periods = Math.ceil(l!);
  const perPeriod: number[] = [];
  let value = c!;
  let switched = false;
  let sl = 0;
  for (let p = 1; p <= periods; p++) {
    let dep: number;
    if (switched) dep = sl;
    else {
      const ddb = Math.min(value * (f / l!), Math.max(0, value - s!));
      const rest = l! - (p - 1);
      const straight = rest > 0 ? (value - s!) / rest : 0;
      if (!ns && straight > ddb) {
        switched = true;
        sl = straight;
        dep = straight;
      } else dep = ddb;
    }
    dep = Math.max(0, Math.min(dep, value - s!));
    perPeriod.push(dep);
    value -= dep;
  }
  let total = 0;
  for (let p = 0; p < periods; p++) {
    const lo = Math.max(a!, p);
    const hi = Math.min(b!, p + 1);
    if (hi > lo) total += perPeriod[p]! * (hi - lo);
  }
  return total;
}

interface Bond {
  settlement: number;
  maturity: number;
  frequency: number;
  basis: number;
}

function readBond(settlement: V, maturity: V, frequency: V, basis: V): Bond | Error {
  const st = argNumber(settlement);
  const mt = argNumber(maturity);
  const fr = argNumber(frequency);
  const bs = optNumber(basis, 0);
  for (const x of [st, mt, fr, bs]) if (isErr(x)) return x;
  const b: Bond = { settlement: Math.trunc(st as number), maturity: Math.trunc(mt as number), frequency: fr as number, basis: Math.trunc(bs as number) };
  if (![1, 2, 4].includes(b.frequency) || b.basis < 0 || b.basis > 4 || b.settlement >= b.maturity) return Errors.num;
  return b;
}

const ymd = (serial: number) => {
  const d = serialToDate(serial);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
};
/** The maturity date moved by `months`, its day kept (end of month when the month is shorter). */
function addMonthsKeep(serial: number, months: number): number {
  const [y, m, d] = ymd(serial);
  const total = y * 12 + (m - 1) + months;
  const ny = Math.floor(total / 12);
  const nm = (total % 12) + 1;
  const last = new Date(Date.UTC(ny, nm, 0)).getUTCDate();
  const lastOfMaturity = d === new Date(Date.UTC(y, m, 0)).getUTCDate();
  return dateSerial(ny, nm, lastOfMaturity ? last : Math.min(d, last));
}

/** Previous and next coupon dates around settlement, and the number of coupons left. */
function coupons(b: Bond): { pcd: number; ncd: number; n: number } {
  const step = 12 / b.frequency;
  let n = 0;
  let ncd = b.maturity;
  let pcd = addMonthsKeep(b.maturity, -step);
  while (pcd > b.settlement) {
    n++;
    ncd = pcd;
    pcd = addMonthsKeep(b.maturity, -step * (n + 1));
  }
  return { pcd, ncd, n: n + 1 };
}

function days360(a: number, b: number, european: boolean): number {
  let [y1, m1, d1] = ymd(a);
  let [y2, m2, d2] = ymd(b);
  if (european) {
    if (d1 === 31) d1 = 30;
    if (d2 === 31) d2 = 30;
  } else {
    const lastFeb = (y: number, m: number, d: number) => m === 2 && d === new Date(Date.UTC(y, 2, 0)).getUTCDate();
    if (lastFeb(y1, m1, d1) && lastFeb(y2, m2, d2)) d2 = 30;
    if (lastFeb(y1, m1, d1)) d1 = 30;
    if (d2 === 31 && d1 >= 30) d2 = 30;
    if (d1 === 31) d1 = 30;
  }
  return (y2 - y1) * 360 + (m2 - m1) * 30 + (d2 - d1);
}

/** Days of the coupon period (E), from its start to settlement (A), and from settlement to the next coupon (DSC). */
function couponDays(b: Bond) {
  const { pcd, ncd, n } = coupons(b);
  let E: number, A: number, DSC: number;
  switch (b.basis) {
    case 0:
      E = 360 / b.frequency;
      A = days360(pcd, b.settlement, false);
      DSC = E - A;
      break;
    case 4:
      E = 360 / b.frequency;
      A = days360(pcd, b.settlement, true);
      DSC = days360(b.settlement, ncd, true);
      break;
    case 1:
      E = ncd - pcd;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
      break;
    case 2:
      E = 360 / b.frequency;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
      break;
    default:
      E = 365 / b.frequency;
      A = b.settlement - pcd;
      DSC = ncd - b.settlement;
  }
  return { E, A, DSC, N: n };
}

function bondPrice(b: Bond, rate: number, yld: number, redemption: number): number {
  const { E, A, DSC, N } = couponDays(b);
  const f = b.frequency;
  const coupon = (100 * rate) / f;
  if (N === 1) {
    const t = DSC / E;
    return (redemption + coupon) / (1 + (t * yld) / f) - (A / E) * coupon;
  }
  let price = redemption / (1 + yld / f) ** (N - 1 + DSC / E);
  for (let k = 1; k <= N; k++) price += coupon / (1 + yld / f) ** (k - 1 + DSC / E);
  return price - coupon * (A / E);
}

function price(settlement: V, maturity: V, rate: V, yld: V, redemption: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const nums = [rate, yld, redemption].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [r, y, red] = nums as number[];
  if (r! < 0 || y! < 0 || red! <= 0) return Errors.num;
  return bondPrice(b, r!, y!, red!);
}

function yieldFn(settlement: V, maturity: V, rate: V, pr: V, redemption: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const nums = [rate, pr, redemption].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [r, p, red] = nums as number[];
  if (r! < 0 || p! <= 0 || red! <= 0) return Errors.num;
  const { E, A, DSC, N } = couponDays(b);
  const f = b.frequency;
  if (N === 1) {
    const coupon = (100 * r!) / f;
    const dirty = p! + (A / E) * coupon;
    return ((red! + coupon - dirty) / dirty) * ((f * E) / DSC);
  }
  // Newton's method on PRICE (Excel iterates too); a bisection fallback keeps it from diverging.
  let lo = 0;
  let hi = 1;
  while (bondPrice(b, r!, hi, red!) > p! && hi < 1e6) hi *= 2;
  let y = r! || 0.05;
  for (let i = 0; i < 100; i++) {
    const fy = bondPrice(b, r!, y, red!) - p!;
    if (Math.abs(fy) < 1e-10) return y;
    const h = 1e-7;
    const d = (bondPrice(b, r!, y + h, red!) - bondPrice(b, r!, y - h, red!)) / (2 * h);
    let next = y - fy / d;
    if (fy > 0) lo = Math.max(lo, y);
    else hi = Math.min(hi, y);
    if (!Number.isFinite(next) || next <= lo || next >= hi) next = (lo + hi) / 2;
    y = next;
  }
  return y;
}

function duration(settlement: V, maturity: V, coupon: V, yld: V, frequency: V, basis: V): V {
  const b = readBond(settlement, maturity, frequency, basis);
  if (isErr(b)) return b;
  const c = argNumber(coupon);
  const y = argNumber(yld);
  if (isErr(c)) return c;
  if (isErr(y)) return y;
  if (c < 0 || y < 0) return Errors.num;
  const { E, DSC, N } = couponDays(b);
  const f = b.frequency;
  const dsc = DSC / E;
  let weighted = 0;
  let total = 0;
  for (let k = 1; k <= N; k++) {
    const t = k - 1 + dsc;
    const cf = (100 * c) / f + (k === N ? 100 : 0);
    const pv = cf / (1 + y / f) ** t;
    weighted += t * pv;
    total += pv;
  }
  return weighted / total / f;
}

/**
 * ACCRINT: par × rate × the year fraction from issue (or, with calc_method FALSE and settlement past the first
 * interest date, from first_interest) to settlement, in the day count of `basis`.
 */
function accrint(issue: V, first: V, settlement: V, rate: V, par: V, frequency: V, basis: V, calcMethod: V): V {
  const nums = [issue, first, settlement, rate, par, frequency].map(argNumber);
  for (const x of nums) if (isErr(x)) return x;
  const [is, fi, st, r, p, f] = nums as number[];
  const b = optNumber(basis, 0);
  if (isErr(b)) return b;
  if (r! <= 0 || p! <= 0 || ![1, 2, 4].includes(f!) || b < 0 || b > 4 || st! <= is!) return Errors.num;
  const fromIssue = calcMethod === undefined || calcMethod === null || calcMethod === true || (typeof calcMethod === "number" && calcMethod !== 0);
  const start = !fromIssue && st! > fi! ? fi! : is!;
  const frac = lib.YEARFRAC!(Math.trunc(start), Math.trunc(st!), Math.trunc(b));
  return typeof frac === "number" ? p! * r! * frac : frac;
}


// ---- criteria (COUNTIF, SUMIF, …) -----------------------------------------------------------------------------

/**
 * A criteria test as Excel reads one: a number or boolean matches equal values; text may start with an operator
 * (`>2`, `<>a`, `=`), compares numbers numerically when its operand reads as a number, and text
 * case-insensitively with wildcards (`a*`, `?b`); `""` or `"="` matches blanks, `"<>"` anything not blank.
 */
function criteriaTest(criteria: V): (v: V) => boolean {
  if (typeof criteria === "number" || typeof criteria === "boolean") {
    return (v) => v === criteria || (typeof criteria === "number" && typeof v === "string" && parseNumberText(v) === criteria);
  }
  if (criteria === null || criteria === undefined) return (v) => v === 0;
  const c = String(criteria);
  const m = /^(<=|>=|<>|<|>|=)?([\s\S]*)$/.exec(c)!;
  const op = m[1] ?? "=";
  const operand = m[2]!;
  const num = parseNumberText(operand);
  if (operand === "") {
    if (op === "=") return (v) => v === null || v === undefined || v === "";
    if (op === "<>") return (v) => !(v === null || v === undefined || v === "");
  }
  if (num !== undefined) {
    return (v) => {
      // Text that reads as the number matches it too (COUNTIF({"1", 1}, "1") is 2).
      if (typeof v === "string" && (op === "=" || op === "<>")) return (parseNumberText(v) === num) === (op === "=");
      if (typeof v !== "number") return op === "<>" ? true : false;
      switch (op) {
        case "=": return v === num;
        case "<>": return v !== num;
        case "<": return v < num;
        case "<=": return v <= num;
        case ">": return v > num;
        default: return v >= num;
      }
    };
  }
  const upper = operand.toUpperCase();
  if (upper === "TRUE" || upper === "FALSE") {
    const b = upper === "TRUE";
    return (v) => (op === "<>" ? v !== b : op === "=" ? v === b : false);
  }
  if (op === "=" || op === "<>") {
    const hasWild = /[*?~]/.test(operand);
    const lower = operand.toLowerCase();
    const eq = (v: V) => typeof v === "string" && (hasWild ? wildcardWhole(operand, v) : v.toLowerCase() === lower);
    return op === "=" ? eq : (v) => !eq(v);
  }
  return (v) => {
    if (typeof v !== "string") return false;
    const c2 = order(v, operand);
    return op === "<" ? c2 < 0 : op === "<=" ? c2 <= 0 : op === ">" ? c2 > 0 : c2 >= 0;
  };
}

/** Positions of `range` that pass every (range, criteria) pair; all ranges the same size (else #VALUE!). */
function matchingPositions(pairs: Array<[V, V]>, size: number): number[] | Error {
  let keep = Array.from({ length: size }, (_, i) => i);
  for (const [range, criteria] of pairs) {
    if (isErr(criteria)) return criteria;
    const items = flat(range);
    if (items.length !== size) return Errors.value;
    const test = criteriaTest(Array.isArray(criteria) ? flat(criteria)[0] : criteria);
    keep = keep.filter((i) => test(items[i]));
  }
  return keep;
}

function ifsAggregate(kind: "sum" | "average" | "max" | "min", target: V, pairs: Array<[V, V]>): V {
  const values = flat(target);
  const pos = matchingPositions(pairs, values.length);
  if (isErr(pos)) return pos;
  const xs: number[] = [];
  for (const i of pos) {
    const x = values[i];
    if (isErr(x)) return x;
    if (typeof x === "number") xs.push(x);
  }
  if (kind === "sum") return sum(xs);
  if (kind === "average") return xs.length ? mean(xs) : Errors.div0;
  return xs.length ? (kind === "max" ? Math.max(...xs) : Math.min(...xs)) : 0;
}

const pairsFrom = (args: V[], start: number): Array<[V, V]> => {
  const out: Array<[V, V]> = [];
  for (let i = start; i + 1 < args.length; i += 2) out.push([args[i], args[i + 1]]);
  return out;
};

// ---- numbers shown as text ------------------------------------------------------------------------------------

/** Excel's GAMMA (Lanczos, g = 7): exact to about 15 digits, where the library's is off in the 9th. */
function gamma(z: number): number {
  const g = 7;
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (z < 0.5) return Math.PI / (Math.sin(Math.PI * z) * gamma(1 - z));
  const x0 = z - 1;
  let a = c[0]!;
  const t = x0 + g + 0.5;
  for (let i = 1; i < g + 2; i++) a += c[i]! / (x0 + i);
  return Math.sqrt(2 * Math.PI) * t ** (x0 + 0.5) * Math.exp(-t) * a;
}

function dollar(n: V, decimals: V): V {
  const x = argNumber(n);
  const d = optNumber(decimals, 2);
  if (isErr(x)) return x;
  if (isErr(d)) return d;
  const places = Math.trunc(d);
  const f = 10 ** places;
  const r = Math.round(Math.abs(x) * f + 1e-9) / f;
  const body = formatText(r, places > 0 ? `#,##0.${"0".repeat(places)}` : "#,##0") as string;
  return x < 0 && r !== 0 ? `($${body})` : `$${body}`;
}

function quartile(a: V, q: V): V {
  const k = argNumber(q);
  if (isErr(k)) return k;
  const quart = Math.trunc(k);
  if (quart < 0 || quart > 4) return Errors.num;
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  if (!xs.length) return Errors.num;
  return lib.PERCENTILE!.INC!(xs, quart / 4);
}

/** F.TEST: the two-tailed probability that the variances of the two samples are not different. */
function fTest(a: V, b: V): V {
  const xs = flat(a).filter((x): x is number => typeof x === "number");
  const ys = flat(b).filter((x): x is number => typeof x === "number");
  const vx = variance(xs, true);
  const vy = variance(ys, true);
  if (isErr(vx) || isErr(vy) || vx === 0 || vy === 0) return Errors.div0;
  const right = lib.F!.DIST!.RT!(vx / vy, xs.length - 1, ys.length - 1);
  return typeof right === "number" ? 2 * Math.min(right, 1 - right) : right;
}

function chiTest(actual: V, expected: V): V {
  const o = rowsOf(actual);
  const e = rowsOf(expected);
  const fo = flat(actual);
  const fe = flat(expected);
  if (fo.length !== fe.length || fo.length < 2) return Errors.na;
  let x = 0;
  for (let i = 0; i < fo.length; i++) {
    const a = fo[i];
    const b = fe[i];
    if (typeof a !== "number" || typeof b !== "number") continue;
    if (b === 0) return Errors.div0;
    x += (a - b) ** 2 / b;
  }
  const r = o.length;
  const c = o[0]!.length;
  const df = r > 1 && c > 1 ? (r - 1) * (c - 1) : fo.length - 1;
  void e;
  return lib.CHISQ!.DIST!.RT!(x, df);
}

function yearFrac(a: V, b: V, basis: V): number | Error {
  const x = argNumber(a);
  const y = argNumber(b);
  const bs = optNumber(basis, 0);
  if (isErr(x)) return x;
  if (isErr(y)) return y;
  if (isErr(bs)) return bs;
  if (Math.trunc(y) <= Math.trunc(x) || bs < 0 || bs > 4) return Errors.num;
  const f = lib.YEARFRAC!(Math.trunc(x), Math.trunc(y), Math.trunc(bs));
  return typeof f === "number" ? f : Errors.num;
}

function withBond(s: V, m: V, f: V, b: V, then: (bond: Bond) => V): V {
  const bond = readBond(s, m, f, b);
  return isErr(bond) ? bond : then(bond);
}

/** Weekend masks ("0000011": Monday first, 1 = weekend) as the library's weekend numbers. */
const WEEKEND_MASKS: Record<string, number> = {
  "0000011": 1, "1000001": 2, "1100000": 3, "0110000": 4, "0011000": 5, "0001100": 6, "0000110": 7,
  "0000001": 11, "1000000": 12, "0100000": 13, "0010000": 14, "0001000": 15, "0000100": 16, "0000010": 17,
};
const weekend = (w: V) => (typeof w === "string" && w in WEEKEND_MASKS ? WEEKEND_MASKS[w] : w);

/** A square matrix of numbers from rows, or an error. */
function squareMatrix(v: V): number[][] | Error {
  const rows = rowsOf(v);
  const n = rows.length;
  if (rows.some((r) => r.length !== n)) return Errors.value;
  if (rows.some((r) => r.some((x) => typeof x !== "number"))) return Errors.value;
  return rows.map((r) => [...(r as number[])]);
}

/** Gauss-Jordan elimination with partial pivoting: the determinant, and the inverse when asked. */
function eliminate(m: number[][], invert: boolean): { det: number; inverse?: number[][] } {
  const n = m.length;
  const a = m.map((r) => [...r]);
  const inv = invert ? a.map((_, i) => a.map((__, j) => (i === j ? 1 : 0))) : [];
  let det = 1;
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(a[r]![c]!) > Math.abs(a[p]![c]!)) p = r;
    if (a[p]![c] === 0) return { det: 0 };
    if (p !== c) {
      [a[p], a[c]] = [a[c]!, a[p]!];
      if (invert) [inv[p], inv[c]] = [inv[c]!, inv[p]!];
      det = -det;
    }
    const pivot = a[c]![c]!;
    det *= pivot;
    for (let j = 0; j < n; j++) {
      a[c]![j]! /= pivot;
      if (invert) inv[c]![j]! /= pivot;
    }
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = a[r]![c]!;
      if (f === 0) continue;
      for (let j = 0; j < n; j++) {
        a[r]![j]! -= f * a[c]![j]!;
        if (invert) inv[r]![j]! -= f * inv[c]![j]!;
      }
    }
  }
  return invert ? { det, inverse: inv } : { det };
}

const TEMPERATURE: Record<string, [(x: number) => number, (k: number) => number]> = {
  C: [(x) => x + 273.15, (k) => k - 273.15], cel: [(x) => x + 273.15, (k) => k - 273.15],
  F: [(x) => ((x - 32) * 5) / 9 + 273.15, (k) => ((k - 273.15) * 9) / 5 + 32], fah: [(x) => ((x - 32) * 5) / 9 + 273.15, (k) => ((k - 273.15) * 9) / 5 + 32],
  K: [(x) => x, (k) => k], kel: [(x) => x, (k) => k],
  Rank: [(x) => (x * 5) / 9, (k) => (k * 9) / 5], Reau: [(x) => x * 1.25 + 273.15, (k) => (k - 273.15) * 0.8],
};

function tbillDays(settlement: V, maturity: V): number | Error {
  const s = argNumber(settlement);
  const m = argNumber(maturity);
  if (isErr(s)) return s;
  if (isErr(m)) return m;
  const days = Math.trunc(m) - Math.trunc(s);
  return days <= 0 || days > 365 ? Errors.num : days;
}

// ---- the table ------------------------------------------------------------------------------------------------

type LibFn = ((...a: unknown[]) => unknown) & { [name: string]: LibFn | undefined };
const lib = formulajs as unknown as Record<string, LibFn | undefined>;

const datedif = (start: V, end: V, unit: V): V => {
  if (start instanceof Date && end instanceof Date && start.getTime() > end.getTime()) return Errors.num;
  if (typeof start === "number" && typeof end === "number" && start > end) return Errors.num;
  return (formulajs.DATEDIF as (...a: unknown[]) => unknown)(start, end, unit);
};

const stats = {
  STDEV: std(true), "STDEV.S": std(true), STDEVP: std(false), "STDEV.P": std(false),
  VAR: vari(true), "VAR.S": vari(true), VARP: vari(false), "VAR.P": vari(false),
  MODE: withNumbers(modeSingle), "MODE.SNGL": withNumbers(modeSingle),
};

export const EXCEL_FUNCTIONS: Record<string, ExcelFunction> = {
  // Aggregates: a reference counts its numbers only, a typed argument counts as its number.
  SUM: { min: 1, max: MANY, references: true, impl: withNumbers(sum) },
  AVERAGE: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? mean(xs) : Errors.div0)) },
  MAX: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? Math.max(...xs) : 0)) },
  MIN: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? Math.min(...xs) : 0)) },
  COUNT: {
    min: 1, max: MANY, references: true, errorAware: true,
    impl: (...args: V[]) => {
      let n = 0;
      for (const a of args) {
        if (Array.isArray(a)) n += flat(a).filter((x) => typeof x === "number" || x instanceof Date).length;
        else if (typeof a === "number" || typeof a === "boolean" || a instanceof Date || (typeof a === "string" && parseNumberText(a) !== undefined)) n++;
      }
      return n;
    },
  },
  COUNTA: {
    min: 1, max: MANY, references: true, errorAware: true,
    impl: (...args: V[]) => {
      let n = 0;
      for (const a of args) n += Array.isArray(a) ? flat(a).filter((x) => x !== null && x !== undefined).length : a === null || a === undefined ? 0 : 1;
      return n;
    },
  },
  ...Object.fromEntries(Object.entries(stats).map(([k, impl]) => [k, { min: 1, max: MANY, references: true, impl }])),
  MEDIAN: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => {
    if (!xs.length) return Errors.num;
    const v = [...xs].sort((a, b) => a - b);
    const h = v.length >> 1;
    return v.length % 2 ? v[h] : (v[h - 1]! + v[h]!) / 2;
  }) },
  PRODUCT: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length ? xs.reduce((a, b) => a * b, 1) : 0)) },
  SUMSQ: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => sum(xs.map((x) => x * x))) },
  GEOMEAN: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length && xs.every((x) => x > 0) ? Math.exp(mean(xs.map(Math.log))) : Errors.num)) },
  HARMEAN: { min: 1, max: MANY, references: true, impl: withNumbers((xs) => (xs.length && xs.every((x) => x > 0) ? xs.length / sum(xs.map((x) => 1 / x)) : Errors.num)) },
  // Criteria: case-insensitive text, wildcards, operators, as Excel matches them.
  COUNTIF: { min: 2, max: 2, impl: (range: V, c: V) => {
    const items = flat(range);
    const pos = matchingPositions([[range, c]], items.length);
    return isErr(pos) ? pos : pos.length;
  } },
  COUNTIFS: { min: 2, max: 254, pairs: true, impl: (...args: V[]) => {
    const size = flat(args[0]).length;
    const pos = matchingPositions(pairsFrom(args, 0), size);
    return isErr(pos) ? pos : pos.length;
  } },
  SUMIF: { min: 2, max: 3, impl: (range: V, c: V, target: V) => ifsAggregate("sum", target === undefined || target === null ? range : target, [[range, c]]) },
  AVERAGEIF: { min: 2, max: 3, impl: (range: V, c: V, target: V) => ifsAggregate("average", target === undefined || target === null ? range : target, [[range, c]]) },
  SUMIFS: { min: 3, max: 255, pairs: true, impl: (target: V, ...rest: V[]) => ifsAggregate("sum", target, pairsFrom(rest, 0)) },
  AVERAGEIFS: { min: 3, max: 255, pairs: true, impl: (target: V, ...rest: V[]) => ifsAggregate("average", target, pairsFrom(rest, 0)) },
  MAXIFS: { min: 3, max: 255, pairs: true, impl: (target: V, ...rest: V[]) => ifsAggregate("max", target, pairsFrom(rest, 0)) },
  MINIFS: { min: 3, max: 255, pairs: true, impl: (target: V, ...rest: V[]) => ifsAggregate("min", target, pairsFrom(rest, 0)) },
  // Optional arguments and Excel's answers for lookups.
  VLOOKUP: { min: 3, max: 4, impl: (v: V, t: V, c: V, a: V) => vlookup(v, t, c, a, false) },
  HLOOKUP: { min: 3, max: 4, impl: (v: V, t: V, c: V, a: V) => vlookup(v, t, c, a, true) },
  MATCH: {
    min: 2, max: 3,
    impl: (v: V, list: V, type: V) => {
      const t = optNumber(type, 1);
      if (isErr(t)) return t;
      const items = flat(list);
      const mode = Math.sign(Math.trunc(t));
      const i = mode === 0 ? xmatch(v, items, typeof v === "string" ? 2 : 0, 1) : approximateMatch(v, items, mode);
      return i < 0 ? Errors.na : i + 1;
    },
  },
  INDEX: {
    min: 2, max: 3,
    impl: (array: V, row: V, col: V) => {
      const rows = rowsOf(array);
      const r = optNumber(row, 0);
      const c = optNumber(col, 0);
      if (isErr(r)) return r;
      if (isErr(c)) return c;
      let ri = Math.trunc(r);
      let ci = Math.trunc(c);
      if (ri < 0 || ci < 0) return Errors.value;
      if (rows.length === 1 && col === undefined) [ri, ci] = [1, ri];
      else if (rows[0]!.length === 1 && col === undefined) ci = 1;
      if (ri > rows.length || ci > rows[0]!.length) return Errors.ref;
      if (ri === 0 && ci === 0) return rows;
      if (ri === 0) return rows.map((x) => x[ci - 1]);
      if (ci === 0) return rows[ri - 1];
      return rows[ri - 1]![ci - 1] ?? null;
    },
  },
  LOOKUP: {
    min: 2, max: 3,
    impl: (v: V, list: V, result: V) => {
      let keys: V[];
      let res: V[];
      if (result === undefined) {
        const rows = rowsOf(list);
        const wide = rows[0]!.length > rows.length;
        keys = wide ? rows[0]! : rows.map((r) => r[0]);
        res = wide ? rows[rows.length - 1]! : rows.map((r) => r[r.length - 1]);
      } else {
        keys = flat(list);
        res = flat(result);
      }
      const i = approximateMatch(v, keys, 1);
      return i < 0 ? Errors.na : (res[i] ?? Errors.na);
    },
  },
  XLOOKUP: {
    min: 3, max: 6,
    impl: (v: V, lookup: V, result: V, notFound: V, mode: V, searchMode: V) => {
      const m = optNumber(mode, 0);
      const s = optNumber(searchMode, 1);
      if (isErr(m)) return m;
      if (isErr(s)) return s;
      if (![0, -1, 1, 2].includes(m) || ![1, -1, 2, -2].includes(s)) return Errors.value;
      const rows = rowsOf(lookup);
      const i = xmatch(v, flat(lookup), m, s);
      if (i < 0) return notFound === undefined ? Errors.na : notFound;
      return pickFrom(result, rows, i);
    },
  },
  XMATCH: {
    min: 2, max: 4,
    impl: (v: V, lookup: V, mode: V, searchMode: V) => {
      const m = optNumber(mode, 0);
      const s = optNumber(searchMode, 1);
      if (isErr(m)) return m;
      if (isErr(s)) return s;
      if (![0, -1, 1, 2].includes(m) || ![1, -1, 2, -2].includes(s)) return Errors.value;
      const i = xmatch(v, flat(lookup), m, s);
      return i < 0 ? Errors.na : i + 1;
    },
  },
  COLUMN: { min: 0, max: 1, impl: () => 1 },
  // Evaluated by the evaluator (it binds names); never called as a library function.
  LET: { min: 3, max: 253, pairs: true, impl: () => Errors.value },
  ROW: { min: 0, max: 1, impl: () => 1 },
  FILTER: { min: 2, max: 3, impl: filterFn },
  SORTBY: { min: 2, max: 253, impl: sortBy },
  SEQUENCE: { min: 1, max: 4, impl: sequence },
  // Statistics.
  "RANK.EQ": { min: 2, max: 3, impl: rank },
  RANK: { min: 2, max: 3, impl: rank },
  PERCENTILE: { min: 2, max: 2, impl: lib.PERCENTILE!.INC! },
  INTERCEPT: { min: 2, max: 2, impl: (ys: V, xs: V) => lib.INTERCEPT!(flat(ys), flat(xs)) },
  "FORECAST.LINEAR": { min: 3, max: 3, impl: lib.FORECAST as (...a: unknown[]) => unknown },
  LARGE: { min: 2, max: 2, impl: kth(true) },
  SMALL: { min: 2, max: 2, impl: kth(false) },
  SUMPRODUCT: { min: 1, max: 255, impl: sumProduct },
  ERF: {
    min: 1, max: 2,
    impl: (a: V, b: V) => {
      const x = argNumber(a);
      if (isErr(x)) return x;
      if (b === undefined) return erf(x);
      const y = argNumber(b);
      return isErr(y) ? y : erf(y) - erf(x);
    },
  },
  NORMSDIST: {
    min: 1, max: 1,
    impl: (z: V) => {
      const x = argNumber(z);
      return isErr(x) ? x : (formulajs as unknown as { NORM: { S: { DIST: (z: number, c: boolean) => number } } }).NORM.S.DIST(x, true);
    },
  },
  // Legacy names with Excel's legacy meaning (the library aliases them to the newer functions' signatures).
  // (A trailing argument the library's alias declared, such as `cumulative`, stays accepted: formulas saved with
  // it keep working; it defaults to the legacy meaning.)
  FDIST: { min: 3, max: 4, impl: (x: V, a: V, b: V) => lib.F!.DIST!.RT!(x, a, b) },
  CHIDIST: { min: 2, max: 3, impl: (x: V, d: V) => lib.CHISQ!.DIST!.RT!(x, d) },
  LOGNORMDIST: { min: 3, max: 4, impl: (x: V, m: V, sd: V, c: V) => lib.LOGNORM!.DIST!(x, m, sd, c ?? true) },
  NEGBINOMDIST: { min: 3, max: 4, impl: (f: V, s: V, p: V, c: V) => lib.NEGBINOM!.DIST!(f, s, p, c ?? false) },
  HYPGEOMDIST: { min: 4, max: 5, impl: (s: V, n: V, m: V, N: V, c: V) => lib.HYPGEOM!.DIST!(s, n, m, N, c ?? false) },
  BETADIST: { min: 3, max: 5, impl: (x: V, a: V, b: V, lo: V, hi: V) => lib.BETA!.DIST!(x, a, b, true, lo ?? 0, hi ?? 1) },
  BETAINV: { min: 3, max: 5, impl: (p: V, a: V, b: V, lo: V, hi: V) => lib.BETA!.INV!(p, a, b, lo ?? 0, hi ?? 1) },
  CONFIDENCE: { min: 3, max: 3, impl: (a: V, sd: V, n: V) => lib.CONFIDENCE!.NORM!(a, sd, n) },
  PERCENTRANK: { min: 2, max: 3, impl: (a: V, x: V, sig: V) => lib.PERCENTRANK!.INC!(a, x, sig ?? 3) },
  ACCRINT: { min: 6, max: 8, impl: accrint },
  TREND: {
    min: 1, max: 3,
    impl: (ys: V, xs: V, nx: V) => {
      const y = flat(ys);
      const x = xs === undefined || xs === null ? y.map((_, i) => i + 1) : flat(xs);
      return lib.TREND!(y, x, nx === undefined || nx === null ? x : flat(nx));
    },
  },
  "T.TEST": { min: 4, max: 4, impl: tTest },
  "T.DIST": { min: 3, max: 3, impl: tDist },
  TTEST: { min: 4, max: 4, impl: tTest },
  "Z.TEST": { min: 2, max: 3, impl: (a: V, x: V, s: V) => lib.Z!.TEST!(a, x, s === null ? undefined : s) },
  ZTEST: { min: 2, max: 3, impl: (a: V, x: V, s: V) => lib.Z!.TEST!(a, x, s === null ? undefined : s) },
  GAMMA: { min: 1, max: 1, impl: (z: V) => {
    const x = argNumber(z);
    if (isErr(x)) return x;
    return x <= 0 && Number.isInteger(x) ? Errors.num : gamma(x);
  } },
  SERIESSUM: { min: 4, max: 4, impl: (x: V, n: V, m: V, coeffs: V) => lib.SERIESSUM!(x, n, m, flat(coeffs)) },
  TBILLPRICE: { min: 3, max: 3, impl: (s: V, m: V, d: V) => {
    const days = tbillDays(s, m);
    const r = argNumber(d);
    if (isErr(days)) return days;
    if (isErr(r)) return r;
    return r <= 0 ? Errors.num : 100 * (1 - (r * days) / 360);
  } },
  TBILLYIELD: { min: 3, max: 3, impl: (s: V, m: V, p: V) => {
    const days = tbillDays(s, m);
    const pr = argNumber(p);
    if (isErr(days)) return days;
    if (isErr(pr)) return pr;
    return pr <= 0 ? Errors.num : ((100 - pr) / pr) * (360 / days);
  } },
  TBILLEQ: { min: 3, max: 3, impl: (s: V, m: V, d: V) => {
    const days = tbillDays(s, m);
    const r = argNumber(d);
    if (isErr(days)) return days;
    if (isErr(r)) return r;
    if (r <= 0) return Errors.num;
    if (days <= 182) return (365 * r) / (360 - r * days);
    const price = 100 * (1 - (r * days) / 360);
    const a = days / 365 - 0.5;
    const b = days / 365;
    const c = (price - 100) / price;
    return (-b + Math.sqrt(b * b - 4 * a * c)) / (2 * a);
  } },
  QUARTILE: { min: 2, max: 2, impl: (a: V, q: V) => quartile(a, q) },
  "QUARTILE.INC": { min: 2, max: 2, impl: (a: V, q: V) => quartile(a, q) },
  "F.TEST": { min: 2, max: 2, impl: fTest },
  FTEST: { min: 2, max: 2, impl: fTest },
  "CHISQ.TEST": { min: 2, max: 2, impl: chiTest },
  CHITEST: { min: 2, max: 2, impl: chiTest },
  TIME: { min: 3, max: 3, impl: (h: V, m: V, sec: V) => {
    const parts = [h, m, sec].map(argNumber);
    for (const x of parts) if (isErr(x)) return x;
    const [hh, mm, ss] = (parts as number[]).map(Math.trunc);
    if ([hh, mm, ss].some((x) => x! > 32_767)) return Errors.num;
    const total = hh! * 3600 + mm! * 60 + ss!;
    return total < 0 ? Errors.num : (total % 86_400) / 86_400;
  } },
  MDURATION: { min: 5, max: 6, impl: (s: V, m: V, c: V, y: V, f: V, b: V) => {
    const d = duration(s, m, c, y, f, b);
    const yy = argNumber(y);
    const ff = argNumber(f);
    return isErr(d) || isErr(yy) || isErr(ff) ? (isErr(d) ? d : Errors.value) : (d as number) / (1 + yy / ff);
  } },
  COUPNUM: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => coupons(bond).n) },
  COUPNCD: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => serialToDate(coupons(bond).ncd)) },
  COUPPCD: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => serialToDate(coupons(bond).pcd)) },
  COUPDAYBS: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => couponDays(bond).A) },
  COUPDAYSNC: { min: 3, max: 4, impl: (s: V, m: V, f: V, b: V) => withBond(s, m, f, b, (bond) => couponDays(bond).DSC) },
  ACCRINTM: { min: 4, max: 5, impl: (issue: V, settle: V, rate: V, par: V, basis: V) => {
    const frac = yearFrac(issue, settle, basis);
    const r = argNumber(rate);
    const p = argNumber(par);
    if (isErr(frac)) return frac;
    if (isErr(r)) return r;
    if (isErr(p)) return p;
    return r <= 0 || p <= 0 ? Errors.num : p * r * frac;
  } },
  INTRATE: { min: 4, max: 5, impl: (s: V, m: V, inv: V, red: V, basis: V) => {
    const frac = yearFrac(s, m, basis);
    const i = argNumber(inv);
    const r = argNumber(red);
    if (isErr(frac)) return frac;
    if (isErr(i)) return i;
    if (isErr(r)) return r;
    return i <= 0 || r <= 0 ? Errors.num : (r - i) / i / frac;
  } },
  RECEIVED: { min: 4, max: 5, impl: (s: V, m: V, inv: V, disc: V, basis: V) => {
    const frac = yearFrac(s, m, basis);
    const i = argNumber(inv);
    const d = argNumber(disc);
    if (isErr(frac)) return frac;
    if (isErr(i)) return i;
    if (isErr(d)) return d;
    const q = 1 - d * frac;
    return i <= 0 || d <= 0 || q <= 0 ? Errors.num : i / q;
  } },
  "NETWORKDAYS.INTL": { min: 2, max: 4, impl: (s: V, e: V, w: V, h: V) => lib.NETWORKDAYS!.INTL!(s, e, weekend(w), h) },
  NETWORKDAYSINTL: { min: 2, max: 4, impl: (s: V, e: V, w: V, h: V) => lib.NETWORKDAYS!.INTL!(s, e, weekend(w), h) },
  "WORKDAY.INTL": { min: 2, max: 4, impl: (s: V, d: V, w: V, h: V) => lib.WORKDAY!.INTL!(s, d, weekend(w), h) },
  WORKDAYINTL: { min: 2, max: 4, impl: (s: V, d: V, w: V, h: V) => lib.WORKDAY!.INTL!(s, d, weekend(w), h) },
  "ERF.PRECISE": { min: 1, max: 1, impl: (x: V) => {
    const n = argNumber(x);
    return isErr(n) ? n : erf(n);
  } },
  "ERFC.PRECISE": { min: 1, max: 1, impl: (x: V) => {
    const n = argNumber(x);
    return isErr(n) ? n : 1 - erf(n);
  } },
  MDETERM: { min: 1, max: 1, impl: (m: V) => {
    const a = squareMatrix(m);
    return isErr(a) ? a : eliminate(a, false).det;
  } },
  MINVERSE: { min: 1, max: 1, impl: (m: V) => {
    const a = squareMatrix(m);
    if (isErr(a)) return a;
    const { det, inverse } = eliminate(a, true);
    return det === 0 || !inverse ? Errors.num : inverse;
  } },
  CONVERT: { min: 3, max: 3, impl: (x: V, from: V, to: V) => {
    const t = typeof from === "string" && typeof to === "string" ? [TEMPERATURE[from], TEMPERATURE[to]] : [];
    if (t[0] && t[1]) {
      const n = argNumber(x);
      return isErr(n) ? n : t[1][1](t[0][0](n));
    }
    return lib.CONVERT!(x, from, to);
  } },
  FIXED: { min: 1, max: 3, impl: (x: V, d: V, noCommas: V) => {
    const n = argNumber(x);
    const dd = optNumber(d, 2);
    if (isErr(n)) return n;
    if (isErr(dd)) return dd;
    const places = Math.max(-15, Math.min(127, Math.trunc(dd)));
    const f = 10 ** places;
    const shown = Number(Math.abs(n).toPrecision(15));
    const r = Math.round(shown * f) / f;
    const plain = noCommas === true || (typeof noCommas === "number" && noCommas !== 0);
    const body = formatText(r, `${plain ? "0" : "#,##0"}${places > 0 ? "." + "0".repeat(places) : ""}`) as string;
    return n < 0 && r !== 0 ? `-${body}` : body;
  } },
  TRIM: { min: 1, max: 1, impl: (t: V) => {
    const s = toText((t ?? null) as FormulaValue);
    return isErr(s) ? s : s.replace(/ +/g, " ").replace(/^ | $/g, "");
  } },
  // Text.
  DOLLAR: { min: 1, max: 2, impl: dollar },
  CHAR: { min: 1, max: 1, impl: (n: V) => {
    const x = argNumber(n);
    if (isErr(x)) return x;
    const k = Math.trunc(x);
    return k < 1 || k > 255 ? Errors.value : String.fromCharCode(k);
  } },
  NOT: { min: 1, max: 1, impl: (v: V) => {
    if (typeof v === "string") {
      const u = v.trim().toUpperCase();
      return u === "TRUE" ? false : u === "FALSE" ? true : Errors.value;
    }
    if (Array.isArray(v)) return Errors.value;
    return !(typeof v === "number" ? v !== 0 : Boolean(v));
  } },
  ...Object.fromEntries(["DEC2HEX", "BIN2HEX", "OCT2HEX", "BASE"].map((name) => {
    const impl = lib[name]!;
    return [name, { min: name === "BASE" ? 2 : 1, max: name === "BASE" ? 3 : 2, impl: (...a: V[]) => {
      const r = impl(...a);
      return typeof r === "string" ? r.toUpperCase() : r;
    } }];
  })),
  TIMEVALUE: { min: 1, max: 1, impl: (t: V) => {
    const x = typeof t === "string" ? parseNumberText(t) : undefined;
    return x === undefined ? Errors.value : x - Math.floor(x);
  } },
  DATEVALUE: { min: 1, max: 1, impl: (t: V) => {
    const x = typeof t === "string" ? parseNumberText(t) : undefined;
    // A date, as DATE gives it (the column reads it back as a date).
    return x === undefined || x < 1 ? Errors.value : serialToDate(Math.floor(x));
  } },
  // Text.
  TEXT: { min: 2, max: 2, impl: formatText },
  SEARCH: { min: 2, max: 3, impl: search },
  PROPER: { min: 1, max: 1, impl: proper },
  VALUE: { min: 1, max: 1, impl: value },
  TEXTBEFORE: { min: 2, max: 6, impl: textAround(false) },
  TEXTAFTER: { min: 2, max: 6, impl: textAround(true) },
  TEXTSPLIT: { min: 2, max: 6, impl: textSplit },
  // Dates.
  DATEDIF: { min: 3, max: 3, impl: datedif },
  // Financial.
  VDB: { min: 5, max: 7, impl: vdb },
  PRICE: { min: 6, max: 7, impl: price },
  YIELD: { min: 6, max: 7, impl: yieldFn },
  DURATION: { min: 5, max: 6, impl: duration },
};
