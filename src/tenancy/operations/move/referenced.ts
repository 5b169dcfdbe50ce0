// The rows outside the shard schema that a shard's rows reference, copied ahead of a shard move's copy (docs/scaling.md
// "Moving a logical shard", "Migrations per kind of database"): the users every shard database keeps a copy of
// (src/db/schema/copies.ts), which shard tables reference with foreign keys D1 enforces in the target too.
// copyReferencedRows copies them whole (moveLogicalShard, ./shardMove.ts); copyReferencedPage a page at a time, for a
// move in steps (./shardMoveSteps.ts), whose every unit of work must fit its budget of D1 calls.
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { is } from "drizzle-orm";
import * as schema from "../../../db/schema/index";
import { shardKeyOf, shardCondition, shardTablesInCopyOrder } from "../../kernel/keys";
import { configOf, insertStatements, MAX_PARAMS, q, shardTables } from "./rows";

/** Foreign keys (of one column) from `table` to tables outside the shard schema: the column, and the table and column it names. */
function outward(table: SQLiteTable) {
  return getTableConfig(table).foreignKeys.flatMap((fk) => {
    const ref = fk.reference();
    const parentName = getTableConfig(ref.foreignTable).name;
    return shardTables.has(parentName) || ref.columns.length !== 1
      ? []
      : [
          {
            column: ref.columns[0]!.name,
            parent: ref.foreignTable,
            parentName,
            parentColumn: ref.foreignColumns[0]!.name,
          },
        ];
  });
}

/**
 * One page of the rows outside the shard schema that the shard's rows name (the users they reference), in key
 * order after `after`, for a move in steps, whose every unit of work must fit its budget of calls however many users
 * a shard names: the referencing columns of every shard table read in one D1 call (a batch), the page's rows read in
 * another, inserted in a third; `calls` says how many it made. Only where that is one level (the referenced tables
 * name nothing further outside the shard, as today); null otherwise, and the caller copies them whole
 * (copyReferencedRows).
 */
export async function copyReferencedPage(
  from: D1Database,
  to: D1Database,
  logical: number,
  after: string | null,
  pageRows: number,
): Promise<{ last: string | null; rows: number; calls: number } | null> {
  const refs = shardTablesInCopyOrder().flatMap((name) =>
    outward(shardTables.get(name)!).map((r) => ({ ...r, table: name })),
  );
  const parents = new Set(refs.map((r) => `${r.parentName}.${r.parentColumn}`));
  if (refs.length === 0 || parents.size !== 1 || outward(refs[0]!.parent).length) return null;
  const { parent, parentName, parentColumn } = refs[0]!;
  const found = await from.batch<{ id: string }>(
    refs.map((r) => {
      const cond = shardCondition(shardKeyOf(r.table), logical);
      return from
        .prepare(
          `SELECT DISTINCT ${q(r.column)} AS id FROM ${q(r.table)} WHERE ${cond.sql} AND ${q(r.column)} IS NOT NULL`,
        )
        .bind(...cond.params);
    }),
  );
  const ids = [...new Set(found.flatMap((f) => f.results.map((x) => String(x.id))))]
    .filter((id) => after === null || id > after)
    .sort();
  const page = ids.slice(0, pageRows);
  if (!page.length) return { last: null, rows: 0, calls: 1 };
  const { columns } = configOf(parent);
  const rows = await from
    .prepare(
      `SELECT ${columns.map(q).join(", ")} FROM ${q(parentName)} WHERE ${q(parentColumn)} IN (SELECT value FROM json_each(?1))`,
    )
    .bind(JSON.stringify(page))
    .raw<unknown[]>();
  if (rows.length) await to.batch(insertStatements(to, parentName, columns, rows, "ON CONFLICT DO NOTHING"));
  return { last: ids.length > pageRows ? page[page.length - 1]! : null, rows: rows.length, calls: rows.length ? 3 : 2 };
}

/** Parent rows wanted, by table: the column that names them and the values it names. */
type Wanted = Map<string, { column: string; ids: Set<string> }>;

/** The ids wanted of `parent` (named by its `column`), added to `wanted` if new. */
function want(wanted: Wanted, parent: string, column: string): Set<string> {
  if (!wanted.has(parent)) wanted.set(parent, { column, ids: new Set() });
  return wanted.get(parent)!.ids;
}

/** Every table of the schema (the shard's and the directory's) by its name. */
function schemaTables(): Map<string, SQLiteTable> {
  return new Map<string, SQLiteTable>(
    Object.values<unknown>(schema)
      .filter((v): v is SQLiteTable => is(v, SQLiteTable))
      .map((t) => [getTableConfig(t).name, t]),
  );
}

/** One statement per outward foreign key of a shard table: the distinct values the shard's rows hold in it. */
function referenceProbes(from: D1Database, logical: number) {
  const probes: { parent: string; column: string; stmt: D1PreparedStatement }[] = [];
  for (const name of shardTablesInCopyOrder()) {
    const cond = shardCondition(shardKeyOf(name), logical);
    for (const { column, parentName: parent, parentColumn } of outward(shardTables.get(name)!)) {
      probes.push({
        parent,
        column: parentColumn,
        stmt: from
          .prepare(`SELECT DISTINCT ${q(column)} FROM ${q(name)} WHERE ${cond.sql} AND ${q(column)} IS NOT NULL`)
          .bind(...cond.params),
      });
    }
  }
  return probes;
}

/**
 * Rows outside the shard schema that the shard's rows reference: the users every shard database keeps a copy of
 * (src/db/schema/copies.ts; docs/scaling.md "Migrations per kind of database"), which shard tables reference with
 * foreign keys D1 enforces in the target too. These rows are copied first (as they are, kept if present); the source
 * keeps its own (they are copies of directory rows).
 */
export async function copyReferencedRows(
  from: D1Database,
  to: D1Database,
  logical: number,
  pageRows: number,
): Promise<Record<string, number>> {
  const everything = schemaTables();

  // Which parent rows the shard's rows name, read in one batch.
  const wanted: Wanted = new Map();
  const probes = referenceProbes(from, logical);
  if (!probes.length) return {};
  const present = new Set(
    (await to.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).raw<[string]>()).map(([n]) => n),
  );
  const found = await from.batch(probes.map((p) => p.stmt));
  probes.forEach((p, i) => {
    const ids = want(wanted, p.parent, p.column);
    for (const row of found[i]!.results as Record<string, string>[]) ids.add(Object.values(row)[0]!);
  });

  const { insertOrder, rowsOf } = await readReferencedRows(from, everything, wanted, present);
  return insertReferencedRows(to, everything, insertOrder, rowsOf, pageRows);
}

/**
 * Parents may name parents (an organization its owner): insert parents first (a depth-first post-order), read
 * in the reverse order so that every row read adds the rows it names before their table is read. The rows of each
 * wanted table the target has, and the order to insert them in.
 */
async function readReferencedRows(
  from: D1Database,
  everything: Map<string, SQLiteTable>,
  wanted: Wanted,
  present: Set<string>,
): Promise<{ insertOrder: string[]; rowsOf: Map<string, unknown[][]> }> {
  const rowsOf = new Map<string, unknown[][]>();
  const insertOrder: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (insertOrder.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const { parentName } of outward(everything.get(name)!)) visit(parentName);
    insertOrder.push(name);
  };
  for (const name of [...wanted.keys()].sort()) visit(name);
  for (const name of [...insertOrder].reverse()) {
    const table = everything.get(name)!;
    const { columns } = configOf(table);
    const entry = wanted.get(name);
    if (!entry || !present.has(name)) continue;
    const ids = [...entry.ids];
    const rows: unknown[][] = [];
    for (let i = 0; i < ids.length; i += MAX_PARAMS - 1) {
      const chunk = ids.slice(i, i + MAX_PARAMS - 1);
      rows.push(
        ...(await from
          .prepare(
            `SELECT ${columns.map(q).join(", ")} FROM ${q(name)} WHERE ${q(entry.column)} IN (${chunk.map(() => "?").join(", ")})`,
          )
          .bind(...chunk)
          .raw<unknown[]>()),
      );
    }
    rowsOf.set(name, rows);
    for (const { column, parentName: parent, parentColumn } of outward(table)) {
      const index = columns.indexOf(column);
      for (const row of rows) if (row[index] != null) want(wanted, parent, parentColumn).add(String(row[index]));
    }
  }
  return { insertOrder, rowsOf };
}

/** Inserts the rows read, parents first, a page per D1 batch, keeping rows the target has; the rows per table. */
async function insertReferencedRows(
  to: D1Database,
  everything: Map<string, SQLiteTable>,
  insertOrder: string[],
  rowsOf: Map<string, unknown[][]>,
  pageRows: number,
): Promise<Record<string, number>> {
  const copied: Record<string, number> = {};
  for (const name of insertOrder) {
    const rows = rowsOf.get(name);
    if (!rows) continue;
    const { columns } = configOf(everything.get(name)!);
    for (let i = 0; i < rows.length; i += pageRows) {
      const statements = insertStatements(to, name, columns, rows.slice(i, i + pageRows), "ON CONFLICT DO NOTHING");
      if (statements.length) await to.batch(statements);
    }
    copied[name] = rows.length;
  }
  return copied;
}
