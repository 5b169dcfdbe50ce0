import { sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
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

/* The same walks as batchable statements are in ./queries.ts (ancestorsStatement, subtreeHeightStatement, liveSubtreeStatement). */

/** SQL: `column` is in the subtree of `rootId` (for a builder's WHERE, so the write stays batchable). */
export function inSubtree(column: SQLiteColumn, rootId: string) {
  return sql`${column} IN (${subtreeSql(rootId)} SELECT id FROM sub)`;
}
