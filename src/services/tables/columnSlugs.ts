/**
 * A column's slug (docs/api-guide.md › Tables, columns, rows, cells): derived from its name, unique in its table
 * among live and deleted columns alike, chosen from the slugs the operation's batch read and retried on a race.
 */
import { and, eq, ne, or, sql, type SQL } from "drizzle-orm";
import { columns } from "../../db/schema";
import type { Db } from "../../env";
import { isUniqueViolation } from "../../db/errors";
import type { ServiceContext } from "../context";

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

/** The table's slugs that `base` could clash with (deleted columns' included: a slug never comes to mean another column). */
export function takenSlugsQuery(db: Db, tableId: string | SQL, base: string, exceptColumnId?: string) {
  return db
    .select({ slug: columns.slug })
    .from(columns)
    .where(
      and(
        eq(columns.tableId, tableId),
        or(eq(columns.slug, base), sql`${columns.slug} LIKE ${`${base}-%`}`),
        exceptColumnId ? ne(columns.id, exceptColumnId) : undefined,
      ),
    );
}

/** `base`, or `base-2`, `base-3`, … whichever is first free. */
function firstFreeSlug(taken: readonly { slug: string }[], base: string): string {
  const set = new Set(taken.map((t) => t.slug));
  if (!set.has(base)) return base;
  for (let n = 2; ; n++) if (!set.has(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * Runs `write` with the slug chosen from the batch's `taken` slugs, retrying with a fresh lookup (one more round
 * trip, only on the rare race) when a concurrent write took the same slug first.
 */
export async function withFreeSlug<T>(
  ctx: ServiceContext,
  input: { tableId: string; name: string; taken: readonly { slug: string }[]; exceptColumnId?: string },
  write: (slug: string) => Promise<T>,
): Promise<T> {
  const { tableId, name, taken, exceptColumnId } = input;
  const base = slugify(name);
  let slug = firstFreeSlug(taken, base);
  for (let attempt = 1; ; attempt++) {
    try {
      return await write(slug);
    } catch (err) {
      if (!isUniqueViolation(err, "columns.table_id, columns.slug") || attempt >= SLUG_ATTEMPTS) throw err;
      slug = firstFreeSlug(await takenSlugsQuery(ctx.db, tableId, base, exceptColumnId), base);
    }
  }
}
