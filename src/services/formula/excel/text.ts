/** Text functions with Excel's semantics: SEARCH, PROPER, VALUE, TEXTBEFORE/TEXTAFTER, TEXTSPLIT. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { parseNumberText } from "../parseText";
import { Errors, type FormulaValue, formulaError, toText } from "../values";
import { wildcardSearch } from "./lookup";
import { EPOCH, MS_PER_DAY, type V, flat, isErr, optNumber } from "./shared";

// ---- text -----------------------------------------------------------------------------------------------------

export function search(find: V, within: V, start: V): V {
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

export function proper(v: V): V {
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

export function value(v: V): V {
  if (typeof v === "number") return v;
  if (v === null || v === undefined) return 0;
  if (typeof v === "string") return parseNumberText(v) ?? Errors.value;
  if (v instanceof Date) return v.getTime() / MS_PER_DAY + EPOCH;
  return Errors.value;
}

/** TEXTBEFORE / TEXTAFTER. */
export function textAround(after: boolean) {
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
    for (let i = 0; i <= hay.length;) {
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

export function textSplit(text: V, colDelim: V, rowDelim: V, ignoreEmpty: V, matchMode: V, padWith: V): V {
  const t = toText((text ?? null) as FormulaValue);
  if (isErr(t)) return t;
  const insensitive = optNumber(matchMode, 0) === 1;
  const toDelims = (v: V) =>
    v === undefined || v === null
      ? []
      : flat(v)
          .map((d) => String(toText(d as FormulaValue)))
          .filter((d) => d !== "");
  const cols = toDelims(colDelim);
  const rowsD = toDelims(rowDelim);
  if (cols.length === 0 && rowsD.length === 0) return Errors.value;
  const splitter = (ds: string[]) =>
    ds.length
      ? new RegExp(ds.map((d) => d.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|"), insensitive ? "gi" : "g")
      : null;
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
