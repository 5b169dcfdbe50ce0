/**
 * Typed builders of row filters and sorts (docs/api-guide.md › Querying rows), for GET /table/{tableId}/rows
 * (`filterParam`, `sortParam` give the JSON text of the query string) and POST /table/{tableId}/query (as they are):
 *
 *   const filter = and(where.number(amountId).gt(1000), where.select(statusId).is("Open"));
 *   const page = await unwrap(api.POST("/table/{tableId}/query", {
 *     params: { path: { tableId } }, body: { filter, sort: [desc(amountId)], limit: 50 } }));
 */

/** A relative date, evaluated when the query runs (UTC days). */
export type RelativeDate =
  { relative: "today" | "yesterday" | "tomorrow" } | { relative: "pastDays" | "nextDays"; days: number };

export interface Condition {
  columnId: string;
  op: string;
  value?: unknown;
}
export type FilterNode = Condition | { and: FilterNode[] } | { or: FilterNode[] };
export interface SortKey {
  columnId: string;
  direction: "asc" | "desc";
}

const cond = (columnId: string, op: string, value?: unknown): Condition =>
  value === undefined ? { columnId, op } : { columnId, op, value };

function comparable<V>(columnId: string) {
  return {
    eq: (v: V) => cond(columnId, "eq", v),
    neq: (v: V) => cond(columnId, "neq", v),
    lt: (v: V) => cond(columnId, "lt", v),
    lte: (v: V) => cond(columnId, "lte", v),
    gt: (v: V) => cond(columnId, "gt", v),
    gte: (v: V) => cond(columnId, "gte", v),
    between: (lo: V, hi: V) => cond(columnId, "between", [lo, hi]),
    isEmpty: () => cond(columnId, "isEmpty"),
    isNotEmpty: () => cond(columnId, "isNotEmpty"),
  };
}

const list = (columnId: string) => ({
  hasAny: (items: string[]) => cond(columnId, "hasAny", items),
  hasAll: (items: string[]) => cond(columnId, "hasAll", items),
  hasNone: (items: string[]) => cond(columnId, "hasNone", items),
  isEmpty: () => cond(columnId, "isEmpty"),
  isNotEmpty: () => cond(columnId, "isNotEmpty"),
});

/** Conditions by column type; formula and lookup columns use the builder of their result type. */
export const where = {
  text: (columnId: string) => ({
    eq: (v: string) => cond(columnId, "eq", v),
    neq: (v: string) => cond(columnId, "neq", v),
    contains: (v: string) => cond(columnId, "contains", v),
    notContains: (v: string) => cond(columnId, "notContains", v),
    startsWith: (v: string) => cond(columnId, "startsWith", v),
    isEmpty: () => cond(columnId, "isEmpty"),
    isNotEmpty: () => cond(columnId, "isNotEmpty"),
  }),
  number: (columnId: string) => comparable<number>(columnId),
  date: (columnId: string) => comparable<number | RelativeDate>(columnId),
  checkbox: (columnId: string) => ({ is: (v: boolean) => cond(columnId, "is", v) }),
  /** Item ids or labels. */
  select: (columnId: string) => ({
    is: (item: string) => cond(columnId, "is", item),
    isNot: (item: string) => cond(columnId, "isNot", item),
    isAnyOf: (items: string[]) => cond(columnId, "isAnyOf", items),
    isNoneOf: (items: string[]) => cond(columnId, "isNoneOf", items),
    isEmpty: () => cond(columnId, "isEmpty"),
    isNotEmpty: () => cond(columnId, "isNotEmpty"),
  }),
  multiSelect: list,
  /** A formula or lookup yielding a list. */
  list,
  oneMany: (columnId: string) => ({
    hasAny: (rowIds: string[]) => cond(columnId, "hasAny", rowIds),
    isEmpty: () => cond(columnId, "isEmpty"),
    isNotEmpty: () => cond(columnId, "isNotEmpty"),
  }),
};

export const and = (...nodes: FilterNode[]): FilterNode => ({ and: nodes });
export const or = (...nodes: FilterNode[]): FilterNode => ({ or: nodes });
export const asc = (columnId: string): SortKey => ({ columnId, direction: "asc" });
export const desc = (columnId: string): SortKey => ({ columnId, direction: "desc" });

/** `filter` of GET /table/{tableId}/rows (and …/aggregate, …/view/{viewId}/rows): the JSON text. */
export const filterParam = (filter: FilterNode): string => JSON.stringify(filter);
/** `sort` of GET /table/{tableId}/rows: the JSON text. */
export const sortParam = (sort: SortKey[]): string => JSON.stringify(sort);
