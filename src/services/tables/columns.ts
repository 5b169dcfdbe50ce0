/** Columns: derived slugs, type options that reference other records, and the identifier column's rules (API.md §7). */
import { and, asc, eq, inArray, ne, or, sql } from "drizzle-orm";
import { columns, tables } from "../../db/schema";
import type { Db } from "../../env";
import { conflict, notFound, validation, type ErrorDetail } from "../../errors";
import { newId, now } from "../../lib/ids";
import { isUniqueViolation } from "../../db/errors";
import type { ColumnDataInput } from "../../schemas/tables";
import type { ColumnRow, TableRow } from "./serialize";

const MAX_SLUG_LENGTH = 64;
const SLUG_ATTEMPTS = 5;

/** Lowercase ASCII words joined by "-"; accents are folded, everything else separates words. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+/, "")
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/-+$/, "");
  return slug || "column";
}

/**
 * `base`, or `base-2`, `base-3`, … whichever is first free in the table. Slugs of deleted columns stay taken,
 * so a slug never comes to mean a different column.
 */
async function freeSlug(db: Db, tableId: string, base: string, exceptColumnId?: string): Promise<string> {
  const taken = await db
    .select({ slug: columns.slug })
    .from(columns)
    .where(
      and(
        eq(columns.tableId, tableId),
        or(eq(columns.slug, base), sql`${columns.slug} LIKE ${`${base}-%`}`),
        exceptColumnId ? ne(columns.id, exceptColumnId) : undefined,
      ),
    );
  const set = new Set(taken.map((t) => t.slug));
  if (!set.has(base)) return base;
  for (let n = 2; ; n++) if (!set.has(`${base}-${n}`)) return `${base}-${n}`;
}

/** Runs `write` with a free slug, retrying when a concurrent write took the same one first. */
async function withFreeSlug<T>(db: Db, tableId: string, name: string, exceptColumnId: string | undefined, write: (slug: string) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const slug = await freeSlug(db, tableId, slugify(name), exceptColumnId);
    try {
      return await write(slug);
    } catch (err) {
      if (!isUniqueViolation(err, "columns.table_id, columns.slug") || attempt >= SLUG_ATTEMPTS) throw err;
    }
  }
}

/** Non-deleted columns of a table in creation order (ids are time-ordered ULIDs). */
export async function liveColumns(db: Db, tableId: string): Promise<ColumnRow[]> {
  return liveColumnsQuery(db, tableId);
}

/** liveColumns as a query builder, to run inside a db.batch. */
export function liveColumnsQuery(db: Db, tableId: string) {
  return db.select().from(columns).where(and(eq(columns.tableId, tableId), eq(columns.isDeleted, false))).orderBy(asc(columns.id));
}

/**
 * A oneMany column's references must resolve: the target a live table of the same project, each
 * `targetColumnId` a live column of the target and each `sourceColumnId` a live column of this table — neither a
 * oneMany column (relations of relations are not computed). 400 with a detail per problem.
 */
async function checkOneManyReferences(db: Db, table: TableRow, data: ColumnDataInput) {
  if (data.type !== "oneMany") return;
  const { tableId: targetId, filter } = data.oneMany;
  const details: ErrorDetail[] = [];
  const ids = [...new Set([...filter.map((f) => f.targetColumnId), ...filter.flatMap((f) => (f.sourceColumnId ? [f.sourceColumnId] : []))])];
  const [[target], cols] = await db.batch([
    db.select({ id: tables.id, projectId: tables.projectId, isDeleted: tables.isDeleted }).from(tables).where(eq(tables.id, targetId)),
    db
      .select({ id: columns.id, tableId: columns.tableId, data: columns.data })
      .from(columns)
      .where(and(inArray(columns.tableId, [table.id, targetId]), eq(columns.isDeleted, false), sql`${columns.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`)),
  ]);
  if (!target || target.isDeleted || target.projectId !== table.projectId) {
    throw validation("oneMany.tableId must be a table of the same project", [{ path: "data.oneMany.tableId", message: "no such table in this project" }]);
  }
  const byId = new Map(cols.map((c) => [c.id, c]));
  const check = (columnId: string, tableId: string, path: string, what: string) => {
    const c = byId.get(columnId);
    if (!c || c.tableId !== tableId) details.push({ path, message: `not a column of the ${what} table` });
    else if (c.data.type === "oneMany") details.push({ path, message: "a oneMany column cannot be compared" });
  };
  filter.forEach((item, i) => {
    check(item.targetColumnId, targetId, `data.oneMany.filter.${i}.targetColumnId`, "target");
    if (item.sourceColumnId) check(item.sourceColumnId, table.id, `data.oneMany.filter.${i}.sourceColumnId`, "source");
  });
  if (details.length) throw validation(`Invalid oneMany filter: ${details.map((d) => `${d.path}: ${d.message}`).join("; ")}`, details);
}

/** The stored form of `data`: what the client sent, with defaults zod filled in. */
function storedData(data: ColumnDataInput): ColumnRow["data"] {
  return data as ColumnRow["data"];
}

export interface NewColumn {
  name: string;
  description?: string;
  data: ColumnDataInput;
}

/** The identifier column every table starts with (API.md §7), to insert with the table. */
export function identifierColumnRow(table: TableRow): ColumnRow {
  return {
    id: newId(),
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    name: "Name",
    slug: "name",
    originId: "",
    description: "",
    isIdentifier: true,
    data: { type: "identifier" },
    formula: null,
    isDeleted: false,
    createdAt: table.createdAt,
    updatedAt: table.createdAt,
  };
}

/** A table has exactly one identifier column, made with the table; another is 409. */
export async function createColumn(db: Db, table: TableRow, input: NewColumn): Promise<ColumnRow> {
  if (input.data.type === "identifier") throw conflict("The table already has its identifier column; a table has exactly one");
  await checkOneManyReferences(db, table, input.data);
  const t = now();
  return withFreeSlug(db, table.id, input.name, undefined, async (slug) => {
    const [row] = await db
      .insert(columns)
      .values({
        id: newId(),
        tableId: table.id,
        projectId: table.projectId,
        workspaceId: table.workspaceId,
        name: input.name,
        slug,
        description: input.description ?? "",
        isIdentifier: false,
        data: storedData(input.data),
        createdAt: t,
        updatedAt: t,
      })
      .returning();
    return row!;
  });
}

/** A non-deleted column (the caller checks its table with requireTable); 404 when missing or deleted. */
export async function findLiveColumn(db: Db, columnId: string): Promise<ColumnRow> {
  const [row] = await db.select().from(columns).where(and(eq(columns.id, columnId), eq(columns.isDeleted, false)));
  if (!row) throw notFound("Column");
  return row;
}

export interface ColumnPatch {
  name?: string;
  description?: string;
  data?: ColumnDataInput;
}

/**
 * Renaming re-derives the slug. `data` replaces the options whole. Changing the type is allowed except to or from
 * `identifier` (409); existing cells keep their stored values and reads return them as stored. Leaving `formula`
 * drops the persisted formula.
 */
export async function updateColumn(db: Db, table: TableRow, column: ColumnRow, patch: ColumnPatch): Promise<ColumnRow> {
  if (patch.data) {
    if (column.isIdentifier && patch.data.type !== "identifier") throw conflict("The identifier column keeps type identifier");
    if (!column.isIdentifier && patch.data.type === "identifier") throw conflict("The table already has its identifier column; a table has exactly one");
    await checkOneManyReferences(db, table, patch.data);
  }
  const set = {
    ...(patch.description !== undefined && { description: patch.description }),
    ...(patch.data && { data: storedData(patch.data) }),
    ...(patch.data && patch.data.type !== "formula" && { formula: null }),
    updatedAt: now(),
  };
  const write = async (slug?: string) => {
    const [row] = await db
      .update(columns)
      .set({ ...set, ...(slug !== undefined && { name: patch.name!, slug }) })
      .where(eq(columns.id, column.id))
      .returning();
    return row!;
  };
  if (patch.name !== undefined && patch.name !== column.name) return withFreeSlug(db, table.id, patch.name, column.id, write);
  return write();
}

export async function softDeleteColumn(db: Db, column: ColumnRow): Promise<void> {
  if (column.isIdentifier) throw conflict("The identifier column cannot be deleted");
  const t = now();
  await db.update(columns).set({ isDeleted: true, updatedAt: t }).where(eq(columns.id, column.id));
}
