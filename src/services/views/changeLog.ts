/**
 * The change-log entries of view writes (docs/api-guide.md › Changes, history and audit): one `view.*` entry per
 * write, in the write's own batch, on the view's table (its workspace, project and table). Each entry is guarded in
 * SQL so a write that changes nothing records nothing.
 */
import { sql, type SQL } from "drizzle-orm";
import type { CellChanges } from "../../db/schema/changes";
import { placedEntryQuery } from "../changes/log";
import type { ServiceContext } from "../context";
import type { ViewRow } from "./viewShape";

/** The members a view's entries record, as the API names them. */
const MEMBERS = ["name", "filter", "sort", "fields", "hidden"] as const;
type Member = (typeof MEMBERS)[number];

const COLUMN_OF: Record<Member, SQL> = {
  name: sql.raw("name"),
  filter: sql.raw("filter"),
  sort: sql.raw("sort"),
  fields: sql.raw("fields"),
  hidden: sql.raw("hidden"),
};

/** A member as stored: the name as text, the others as their JSON text (NULL for null), as Drizzle writes them. */
const stored = (m: Member, v: unknown) =>
  m === "name" ? (v as string) : v === null || v === undefined ? null : JSON.stringify(v);

/** After the insert: `view.created` with its name, filter, sort, fields and hidden as `after`. */
export function viewCreatedEntry(ctx: ServiceContext, row: ViewRow) {
  const changes: CellChanges = Object.fromEntries(MEMBERS.map((m) => [m, { before: null, after: row[m] ?? null }]));
  return placedEntryQuery(
    ctx,
    "view.created",
    row,
    changes,
    sql`EXISTS (SELECT 1 FROM table_views WHERE id = ${row.id})`,
  );
}

/**
 * Before the update: `view.updated` with each member given whose value differs from the one read (before and after),
 * recorded only when a stored value still differs from the new one; nothing when no member changes.
 */
export function viewUpdatedEntry(ctx: ServiceContext, before: ViewRow, set: Partial<Pick<ViewRow, Member>>) {
  const changed = MEMBERS.filter((m) => m in set && stored(m, set[m]) !== stored(m, before[m]));
  if (!changed.length) return [];
  const changes: CellChanges = Object.fromEntries(
    changed.map((m) => [m, { before: before[m] ?? null, after: set[m] ?? null }]),
  );
  const differs = sql.join(
    changed.map((m) => sql`${COLUMN_OF[m]} IS NOT ${stored(m, set[m])}`),
    sql` OR `,
  );
  const live = sql`EXISTS (SELECT 1 FROM table_views WHERE id = ${before.id} AND is_deleted = 0 AND (${differs}))`;
  return placedEntryQuery(ctx, "view.updated", before, changes, live);
}

/** Before the tombstone: `view.deleted` (`isDeleted` from false to true), unless already deleted. */
export function viewDeletedEntry(ctx: ServiceContext, before: ViewRow) {
  const changes = { isDeleted: { before: false, after: true } };
  const live = sql`EXISTS (SELECT 1 FROM table_views WHERE id = ${before.id} AND is_deleted = 0)`;
  return placedEntryQuery(ctx, "view.deleted", before, changes, live);
}
