import { sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { rawSelect } from "../../db/sql";
import type { Db } from "../../env";
import { MAX_FOLDER_DEPTH } from "../../auth/access";
import type { ServiceContext } from "../context";

/** The document and every document below it (deleted or not), with each one's depth below the root. */
export function subtreeSql(rootId: string) {
  return sql`WITH RECURSIVE sub(id, depth) AS (
    SELECT ${rootId}, 0
    UNION
    SELECT d.id, sub.depth + 1 FROM documents d JOIN sub ON d.parent_id = sub.id WHERE sub.depth < ${MAX_FOLDER_DEPTH * 4}
  )`;
}

/** The ids of the document's subtree (itself first, then by depth); `onlyLive` leaves deleted ones out. */
export async function subtreeIds(
  ctx: ServiceContext,
  input: { rootId: string; onlyLive?: boolean },
): Promise<string[]> {
  const { rootId } = input;
  const rows = await ctx.db.all<{ id: string }>(sql`${subtreeSql(rootId)}
    SELECT sub.id AS id FROM sub JOIN documents d ON d.id = sub.id
    ${input.onlyLive ? sql`WHERE d.is_deleted = 0` : sql``}
    ORDER BY sub.depth`);
  return rows.map((r) => r.id);
}

/*
 * The same walks as batchable statements (rawSelect), so a service can put them in the batch that checks access.
 * An empty id ("") matches nothing: services pass it when a walk is not needed, keeping the batch's shape fixed.
 */

/** Ids from the document up to the root folder (the document included); their number is its depth + 1. */
export function ancestorsStatement(db: Db, id: string) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`WITH RECURSIVE up(id, parent_id, depth) AS (
      SELECT id, parent_id, 0 FROM documents WHERE id = ${id}
      UNION ALL
      SELECT d.id, d.parent_id, up.depth + 1 FROM documents d JOIN up ON d.id = up.parent_id WHERE up.depth < ${MAX_FOLDER_DEPTH * 4}
    ) SELECT id AS id FROM up`,
  );
}

/** One row: the depth of the deepest document below `rootId` (0 for a leaf). */
export function subtreeHeightStatement(db: Db, rootId: string) {
  return rawSelect<{ height: number | null }>(
    db,
    ["height"],
    sql`${subtreeSql(rootId)} SELECT MAX(depth) AS height FROM sub`,
  );
}

/** Ids of the live documents in the subtree of `rootId` (itself included when live). */
export function liveSubtreeStatement(db: Db, rootId: string) {
  return rawSelect<{ id: string }>(
    db,
    ["id"],
    sql`${subtreeSql(rootId)}
    SELECT sub.id AS id FROM sub JOIN documents d ON d.id = sub.id WHERE d.is_deleted = 0`,
  );
}

/** SQL: `column` is in the subtree of `rootId` (for a builder's WHERE, so the write stays batchable). */
export function inSubtree(column: SQLiteColumn, rootId: string) {
  return sql`${column} IN (${subtreeSql(rootId)} SELECT id FROM sub)`;
}
