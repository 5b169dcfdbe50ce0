/** TEXT's Excel format codes: number, percent, scientific and date/time sections. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { MONTHS, parseNumberText } from "../parseText";
import { Errors, type FormulaValue, numberText, toText } from "../values";
import { EPOCH, MS_PER_DAY, type V, isErr, serialToDate } from "./shared";

// ---- TEXT format codes ----------------------------------------------------------------------------------------

export const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function splitSections(format: string): string[] {
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

export type Piece = { lit: string } | { code: string };

/** A section as literal pieces and code runs. */
export function tokenize(section: string): Piece[] {
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

export const isDateSection = (pieces: Piece[]) => {
  const codes = pieces
    .map((p) => ("code" in p ? p.code : " "))
    .join("")
    .toLowerCase();
  return /[ydhs]|am\/pm|a\/p/.test(codes.replace(/e[+-]/g, "")) || (/m/.test(codes) && !/[0#?]/.test(codes));
};

// eslint-disable-next-line max-lines-per-function -- a table of Excel's date format codes, one case each
export function formatDate(serial: number, pieces: Piece[]): string | Error {
  if (serial < 0) return Errors.value;
  const whole = Math.floor(serial);
  let secs = Math.round((serial - whole) * 86_400);
  let day = whole;
  if (secs >= 86_400) {
    day += 1;
    secs -= 86_400;
  }
  const d = serialToDate(day);
  const Y = d.getUTCFullYear(),
    M = d.getUTCMonth(),
    D = d.getUTCDate(),
    W = d.getUTCDay();
  const h = Math.floor(secs / 3600),
    mi = Math.floor((secs % 3600) / 60),
    s = secs % 60;
  const code = pieces.map((p) => ("code" in p ? p.code : `\u0000${p.lit}\u0001`)).join("");
  const ampm = /am\/pm|a\/p/i.test(code);
  // Tokens in order, so an `m` after `h` or before `s` is minutes.
  const re = /\u0000([^\u0001]*)\u0001|yyyy|yy|y|mmmmm|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|s|am\/pm|a\/p|\.0+|./gi;
  const tokens: string[] = [];
  for (let m; (m = re.exec(code));) tokens.push(m[0]);
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

export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

// eslint-disable-next-line max-lines-per-function -- Excel's number format sections and codes, one case each
export function formatNumber(n: number, pieces: Piece[], signed: boolean): string {
  const codes = pieces.map((p) => ("code" in p ? p.code : "")).join("");
  if (codes.toLowerCase() === "general" || !/[0#?]/.test(codes)) {
    const literal = pieces.map((p) => ("lit" in p ? p.lit : p.code)).join("");
    if (codes.toLowerCase().includes("general"))
      return literal.replace(/general/i, (signed && n < 0 ? "-" : "") + numberText(Math.abs(n)));
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
    } else if (
      "code" in p &&
      /[eE]/.test(p.code) &&
      /[+-]/.test(String((pieces[i + 1] as { code?: string })?.code ?? ""))
    ) {
      last = i + 1;
      i++;
    } else break;
  }
  while (
    last + 1 < pieces.length &&
    "code" in pieces[last + 1]! &&
    /[0#?,]/.test((pieces[last + 1] as { code: string }).code)
  )
    last++;
  const pattern = pieces
    .slice(first, last + 1)
    .map((p) => ("code" in p ? p.code : ""))
    .join("");
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
    core =
      (minInt === 0 && m.startsWith("0") && x === 0 ? m.slice(1) : m) +
      "E" +
      (e < 0 ? "-" : sci[2] === "+" ? "+" : "") +
      String(Math.abs(e)).padStart(sci[3]!.length, "0");
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
  const before = pieces
    .slice(0, first)
    .map((p) => ("lit" in p ? p.lit : p.code))
    .join("");
  const after = pieces
    .slice(last + 1)
    .map((p) => ("lit" in p ? p.lit : p.code))
    .join("");
  const negative = signed && n < 0 && x !== 0;
  return (negative ? "-" : "") + before + core + after;
}

/** x to `digits` decimals, rounding half away from zero on the decimal value Excel shows (15 digits). */
export function roundTo(x: number, digits: number): string {
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
    return textSection === undefined
      ? t
      : tokenize(textSection)
          .map((p) => ("lit" in p ? p.lit : p.code === "@" ? t : p.code))
          .join("");
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
