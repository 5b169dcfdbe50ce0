/**
 * The views area's statement builders (docs/architecture.md, "Services and statements"): they return the query (or
 * the SQL) without running it; ./views.ts puts them in its read batches.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import { tableViews } from "../../db/schema";
import type { Db } from "../../env";

/** The table of a view, as a scalar subquery (for the access and column reads in the view's batch). */
export const tableOfView = (viewId: string) => sql`(SELECT table_id FROM table_views WHERE id = ${viewId})`;

/** Batchable: the view when it is live (no row otherwise). */
export function liveViewStatement(db: Db, viewId: string) {
  return db
    .select()
    .from(tableViews)
    .where(and(eq(tableViews.id, viewId), eq(tableViews.isDeleted, false)));
}

/** Batchable: a table's live views, in id order. */
export function tableViewsStatement(db: Db, tableId: string) {
  return db
    .select()
    .from(tableViews)
    .where(and(eq(tableViews.tableId, tableId), eq(tableViews.isDeleted, false)))
    .orderBy(asc(tableViews.id));
}
