/**
 * Sorting and the cursor of a sorted query (docs/api-guide.md › Querying rows). Keys compare by stored value,
 * empty values last in both directions, ties in ascending row order (seq, id). The cursor carries the last row's
 * key values, seq and id, so the next page starts strictly after it however many rows were inserted meanwhile.
 */
import { sql, type SQL } from "drizzle-orm";
import { validation, type ErrorDetail } from "../../../errors";
import { textFromBase64Url, textToBase64Url } from "../../../lib/base64";
import { ID_PATTERN } from "../../../lib/ids";
import { columnType } from "../cellValues";
import type { ColumnRow } from "../serialize";
import { rowValue } from "./sqlParts";

export const MAX_SORT_KEYS = 5;

export interface SortKey {
  columnId: string;
  direction: "asc" | "desc";
}

export type KeyValue = string | number | null;

export interface Position {
  keys: KeyValue[];
  seq: number;
  id: string;
}

/** The sort keys, checked against the columns; problems are added to `details` (422). */
export function checkSort(
  sort: unknown,
  columnsById: ReadonlyMap<string, ColumnRow>,
  details: ErrorDetail[],
): SortKey[] {
  if (sort === undefined) return [];
  if (!Array.isArray(sort) || sort.length > MAX_SORT_KEYS) {
    details.push({ path: "sort", message: `an array of at most ${MAX_SORT_KEYS} { columnId, direction }` });
    return [];
  }
  const out: SortKey[] = [];
  sort.forEach((k: unknown, i) => {
    const key = k as Partial<SortKey> | null;
    const column = typeof key?.columnId === "string" ? columnsById.get(key.columnId) : undefined;
    if (!key || typeof key !== "object" || !column)
      details.push({ path: `sort.${i}.columnId`, message: "no such column in this table" });
    else if (columnType(column) === "oneMany")
      details.push({ path: `sort.${i}.columnId`, message: "relation columns cannot be sorted on" });
    else if (key.direction !== undefined && key.direction !== "asc" && key.direction !== "desc")
      details.push({ path: `sort.${i}.direction`, message: "asc or desc" });
    else if (Object.keys(key).some((m) => m !== "columnId" && m !== "direction"))
      details.push({ path: `sort.${i}`, message: "only columnId and direction" });
    else out.push({ columnId: column.id, direction: key.direction ?? "asc" });
  });
  return out;
}

/** The select list's key expressions, k0…kN. */
export function sortKeyFields(sort: readonly SortKey[]): Record<string, SQL<KeyValue>> {
  return Object.fromEntries(sort.map((k, i) => [`k${i}`, rowValue(k.columnId) as SQL<KeyValue>]));
}

/**
 * Where a query's keys are read from: by default each key's value looked up for the row `"rows"`; over a set of
 * matches that already carries them (query.ts, the sorted page), its columns k0…kN, seq and id.
 */
export interface KeySource {
  key(k: SortKey, i: number): SQL;
  seq: SQL;
  id: SQL;
}

const ROW_KEYS: KeySource = { key: (k) => rowValue(k.columnId), seq: sql`"rows"."seq"`, id: sql`"rows"."id"` };

/** The key columns of a set of matches built with sortKeyFields' names (k0…kN, seq, id). */
export const MATCH_KEYS: KeySource = { key: (_, i) => sql.raw(`k${i}`), seq: sql.raw("seq"), id: sql.raw("id") };

export function orderBySql(sort: readonly SortKey[], from: KeySource = ROW_KEYS): SQL[] {
  const out: SQL[] = [];
  sort.forEach((k, i) => {
    const v = from.key(k, i);
    out.push(sql`${v} IS NULL`, k.direction === "desc" ? sql`${v} DESC` : sql`${v} ASC`);
  });
  out.push(from.seq, from.id);
  return out;
}

/** Rows strictly after `pos` in the order of `sort`. */
export function afterSql(sort: readonly SortKey[], pos: Position, from: KeySource = ROW_KEYS): SQL {
  const alternatives: SQL[] = [];
  const equalSoFar: SQL[] = [];
  sort.forEach((k, i) => {
    const v = from.key(k, i);
    const at = pos.keys[i] ?? null;
    if (at !== null) {
      const beyond = k.direction === "desc" ? sql`${v} < ${at}` : sql`${v} > ${at}`;
      alternatives.push(sql.join([...equalSoFar, sql`(${beyond} OR ${v} IS NULL)`], sql.raw(" AND ")));
      equalSoFar.push(sql`${v} = ${at}`);
    } else equalSoFar.push(sql`${v} IS NULL`);
  });
  alternatives.push(
    sql.join([...equalSoFar, sql`(${from.seq}, ${from.id}) > (${pos.seq}, ${pos.id})`], sql.raw(" AND ")),
  );
  return sql`(${sql.join(
    alternatives.map((a) => sql`(${a})`),
    sql.raw(" OR "),
  )})`;
}

const sortSignature = (sort: readonly SortKey[]) => sort.map((k) => `${k.columnId}:${k.direction}`).join(",");

export function encodeSortedCursor(sort: readonly SortKey[], pos: Position): string {
  return textToBase64Url(JSON.stringify({ o: sortSignature(sort), k: pos.keys, s: pos.seq, i: pos.id }));
}

/** The position of a cursor this query issued; 400 for any other. */
export function decodeSortedCursor(sort: readonly SortKey[], cursor: string): Position {
  const bad = () =>
    validation("cursor is not a cursor this query returned", [{ path: "cursor", message: "invalid cursor" }]);
  let parsed: { o?: unknown; k?: unknown; s?: unknown; i?: unknown };
  try {
    parsed = JSON.parse(textFromBase64Url(cursor) ?? "") as typeof parsed;
  } catch {
    throw bad();
  }
  const { o, k, s, i } = parsed ?? {};
  const keysOk =
    Array.isArray(k) &&
    k.length === sort.length &&
    k.every((v) => v === null || typeof v === "string" || (typeof v === "number" && Number.isFinite(v)));
  if (o !== sortSignature(sort) || !keysOk || !Number.isSafeInteger(s) || typeof i !== "string" || !ID_PATTERN.test(i))
    throw bad();
  return { keys: k as KeyValue[], seq: s as number, id: i };
}
