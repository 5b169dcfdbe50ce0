/** Lookups with Excel's semantics: wildcards, MATCH/XMATCH modes, VLOOKUP/HLOOKUP. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { Errors } from "../values";
import { type V, argNumber, isErr } from "./shared";

// ---- lookups --------------------------------------------------------------------------------------------------

/**
 * Excel's wildcards (`?` one character, `*` any run, `~` escapes the next `?`, `*` or `~`), matched without a
 * backtracking regular expression (a pattern such as `*a*a*a*b` would take exponential time): the pattern is
 * split at its stars into segments, each found leftmost after the previous one, which is linear in the text
 * for each segment. Case-insensitive.
 */
export type Segment = Array<string | null>; // null: any one character
export function wildcardSegments(pattern: string): Segment[] {
  const segs: Segment[] = [[]];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "~" && i + 1 < pattern.length && "?*~".includes(pattern[i + 1]!))
      segs[segs.length - 1]!.push(pattern[++i]!.toLowerCase());
    else if (c === "?") segs[segs.length - 1]!.push(null);
    else if (c === "*") segs.push([]);
    else segs[segs.length - 1]!.push(c.toLowerCase());
  }
  return segs;
}
export const segmentAt = (seg: Segment, text: string, at: number) => {
  if (at + seg.length > text.length) return false;
  for (let k = 0; k < seg.length; k++) if (seg[k] !== null && seg[k] !== text[at + k]) return false;
  return true;
};
export const segmentFrom = (seg: Segment, text: string, from: number, to = text.length) => {
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
  if (first.length + last.length > t.length || !segmentAt(first, t, 0) || !segmentAt(last, t, t.length - last.length))
    return false;
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
export function order(a: V, b: V): number {
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
export const sameKind = (a: V, b: V) => typeof a === typeof b && a !== null;

/**
 * The position (0-based) of `value` in `list` per XMATCH's match_mode (0 exact, -1 exact or next smaller,
 * 1 exact or next larger, 2 wildcard) and search_mode (1 first to last, -1 last to first; 2/-2 binary, which
 * gives the same answers on sorted data); -1 when none.
 */
export function xmatch(value: V, list: V[], mode: number, search: number): number {
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
export function approximateMatch(value: V, list: V[], type: number): number {
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
export function rowsOf(v: V): V[][] {
  if (!Array.isArray(v)) return [[v]];
  if (v.length > 0 && v.every(Array.isArray)) return v as V[][];
  return [v];
}

/** Picks position `i` of the lookup vector out of the result array, keeping Excel's row/column sense. */
export function pickFrom(result: V, lookupRows: V[][], i: number): V {
  const rows = rowsOf(result);
  const vertical = lookupRows.length > 1;
  if (vertical)
    return rows.length === 1 && rows[0]!.length > 1 ? rows[0]![i] : rows[i]?.length === 1 ? rows[i]![0] : rows[i];
  return rows.length === 1 ? rows[0]![i] : rows.map((r) => r[i]);
}

export function vlookup(value: V, table: V, col: V, approx: V, transpose: boolean): V {
  let rows = rowsOf(table);
  if (transpose) rows = rows[0]!.map((_, c) => rows.map((r) => r[c]));
  const k = argNumber(col);
  if (isErr(k)) return k;
  const index = Math.trunc(k);
  if (index < 1) return Errors.value;
  if (index > (rows[0]?.length ?? 0)) return Errors.ref;
  const keys = rows.map((r) => r[0]);
  const a =
    approx === undefined || approx === null ? true : approx === true || (typeof approx === "number" && approx !== 0);
  const i = a ? approximateMatch(value, keys, 1) : xmatch(value, keys, typeof value === "string" ? 2 : 0, 1);
  return i < 0 ? Errors.na : (rows[i]![index - 1] ?? null);
}
