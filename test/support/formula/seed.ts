/**
 * Seeding of tables, columns, rows and cells for the formula tests — directly in D1, because the table routes
 * (issue 3) live on another branch. Everything that creates table data is in this one file so it can switch to
 * the HTTP routes (POST /table, /table/{id}/column, /table/{id}/rows) once they are merged. Every record is written
 * to the shard database of the tenant's organization (docs/scaling.md), with ids issued beside their parent so they
 * name that shard, as the services issue them.
 */
import { idsBeside, newIdBeside } from "../../../src/tenancy/kernel/ids";
import type { Tenant } from "../harness";
import { shardD1 } from "../shards";

export interface SeedColumn {
  name: string;
  type: string;
  data?: Record<string, unknown>;
  formula?: { expression: unknown; description: unknown[] };
}

export interface SeededTable {
  tableId: string;
  projectId: string;
  workspaceId: string;
  ownerId: string;
  /** Column ids by name; the identifier column is "Name". */
  col: Record<string, string>;
}

/** A table with its identifier column "Name" and the given columns, in the tenant's project. */
export async function seedTable(t: Tenant, columns: SeedColumn[] = [], name = "Table"): Promise<SeededTable> {
  const now = Date.now();
  const tableId = newIdBeside(t.projectId);
  const db = shardD1(tableId);
  const col: Record<string, string> = { Name: newIdBeside(tableId) };
  const stmts = [
    db
      .prepare(
        "INSERT INTO tables (id, project_id, workspace_id, user_id, name, is_deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
      )
      .bind(tableId, t.projectId, t.workspaceId, t.owner.id, name, now, now),
    columnInsert(tableId, t, col.Name!, { name: "Name", type: "identifier" }, true, now),
  ];
  columns.forEach((c, i) => {
    col[c.name] = newIdBeside(tableId);
    stmts.push(columnInsert(tableId, t, col[c.name]!, c, false, now + i + 1));
  });
  await db.batch(stmts);
  return { tableId, projectId: t.projectId, workspaceId: t.workspaceId, ownerId: t.owner.id, col };
}

function columnInsert(tableId: string, t: Tenant, id: string, c: SeedColumn, isIdentifier: boolean, at: number) {
  const slug = `${c.name.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${id.slice(-6).toLowerCase()}`;
  return shardD1(tableId)
    .prepare(
      `INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, formula, is_deleted, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
    )
    .bind(
      id,
      tableId,
      t.projectId,
      t.workspaceId,
      c.name,
      slug,
      isIdentifier ? 1 : 0,
      JSON.stringify({ type: c.type, ...(c.data ?? {}) }),
      c.formula ? JSON.stringify(c.formula) : null,
      at,
      at,
    );
}

/** Adds a column to a seeded table. */
export async function seedColumn(t: Tenant, table: SeededTable, c: SeedColumn): Promise<string> {
  const id = newIdBeside(table.tableId);
  await columnInsert(table.tableId, t, id, c, false, Date.now()).run();
  table.col[c.name] = id;
  return id;
}

/**
 * Rows with cells given by column name (undefined/absent = no cell), inserted with json_each in chunks so
 * tens of thousands of rows take one batch. Returns the row ids in order (ascending: ULIDs with the table's shard).
 */
export async function seedRows(table: SeededTable, rows: Array<Record<string, unknown>>): Promise<string[]> {
  const now = Date.now();
  const db = shardD1(table.tableId);
  const newId = idsBeside(table.tableId);
  const rowIds = rows.map(() => newId());
  const cellItems: string[] = [];
  rows.forEach((cells, i) => {
    for (const [name, value] of Object.entries(cells)) {
      if (value === undefined) continue;
      const columnId = table.col[name];
      if (!columnId) throw new Error(`seedRows: no column ${name}`);
      cellItems.push(JSON.stringify([newId(), rowIds[i], columnId, JSON.stringify(value), name === "Name" ? 1 : 0]));
    }
  });
  const stmts: D1PreparedStatement[] = [];
  for (let i = 0; i < rowIds.length; i += 5000) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, is_deleted, created_at, updated_at)
         SELECT value, ?1, ?2, ?3, ?4, 0, ?5, ?5 FROM json_each(?6)`,
        )
        .bind(
          table.tableId,
          table.projectId,
          table.workspaceId,
          table.ownerId,
          now,
          JSON.stringify(rowIds.slice(i, i + 5000)),
        ),
    );
  }
  for (let i = 0; i < cellItems.length; i += 5000) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, is_identifier, data, is_deleted, created_at, updated_at)
         SELECT json_extract(value, '$[0]'), ?1, json_extract(value, '$[1]'), json_extract(value, '$[2]'), ?2,
                json_extract(value, '$[4]'), json_extract(value, '$[3]'), 0, ?3, ?3
         FROM json_each(?4)`,
        )
        .bind(table.tableId, table.workspaceId, now, `[${cellItems.slice(i, i + 5000).join(",")}]`),
    );
  }
  if (stmts.length > 0) await db.batch(stmts);
  return rowIds;
}

/** Stored values of one column: row id → parsed JSON (rows without a cell are absent). */
export async function cellValues(columnId: string): Promise<Map<string, unknown>> {
  const { results } = await shardD1(columnId)
    .prepare("SELECT row_id, data FROM cells WHERE column_id = ? AND is_deleted = 0")
    .bind(columnId)
    .all<{ row_id: string; data: string | null }>();
  return new Map(results.map((r) => [r.row_id, r.data === null ? null : JSON.parse(r.data)]));
}

export async function setCell(table: SeededTable, rowId: string, columnName: string, value: unknown) {
  await shardD1(table.tableId)
    .prepare(
      `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(row_id, column_id) DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at`,
    )
    .bind(
      newIdBeside(table.tableId),
      table.tableId,
      rowId,
      table.col[columnName],
      table.workspaceId,
      JSON.stringify(value),
      Date.now(),
      Date.now(),
    )
    .run();
}

export async function columnRecord(columnId: string) {
  const row = await shardD1(columnId)
    .prepare("SELECT data, formula, updated_at, is_deleted FROM columns WHERE id = ?")
    .bind(columnId)
    .first<{ data: string; formula: string | null; updated_at: number; is_deleted: number }>();
  return row
    ? {
        data: JSON.parse(row.data),
        formula: row.formula ? JSON.parse(row.formula) : null,
        updatedAt: row.updated_at,
        isDeleted: Boolean(row.is_deleted),
      }
    : null;
}

export async function softDelete(kind: "columns" | "rows" | "tables", id: string) {
  await shardD1(id).prepare(`UPDATE ${kind} SET is_deleted = 1 WHERE id = ?`).bind(id).run();
}
