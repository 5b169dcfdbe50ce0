/**
 * Reference ids (docs/scaling.md "Reference ids"): the directory's record of which document holds each
 * client-chosen reference id, per kind (`clause`: clause_references, `table`: table_references). Every shard
 * database keeps its references unique by primary key, but a key holds inside one database only; the claim's primary
 * key holds across all of them. A create claims the id in the directory beside its first read, then writes the
 * reference in its shard; a create that fails after the claim gives it back. Ids are never given back on delete (a
 * soft-deleted reference keeps its id, docs/api-guide.md › Content, snapshots and references). A create interrupted
 * between the two databases is repaired by the scheduler's `reconcileReferenceIds`.
 *
 * The table is created by hand (migrations/directory/0000) and kept out of the drizzle schema, like `portal_routes`; the
 * drizzle table below only lets its statements be built with drizzle. The claim names the reference's document,
 * whose id names the shard that holds it (a document is issued beside its workspace, and the create routes are
 * routed by it): the workspace is not known before the first read, which the claim rides beside.
 */
import { and, eq, sql } from "drizzle-orm";
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Env } from "../../env";
import { reconcileIndex, withClaim, type DirectoryIndex } from "../context";
import type { ServiceContext } from "../context";

export type ReferenceKind = "clause" | "table";

export const referenceIds = sqliteTable(
  "reference_ids",
  {
    kind: text("kind").$type<ReferenceKind>().notNull(),
    id: text("id").notNull(),
    documentId: text("document_id").notNull(),
    claimedAt: integer("claimed_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.id] })],
);

/** The table each kind's references live in (in every shard database). */
const TABLE_OF: Record<ReferenceKind, string> = { clause: "clause_references", table: "table_references" };

/**
 * Claims `id` for `documentId` in the directory (one statement): true when this call took it, false when anyone
 * (another create, a reference already made, a deleted one) holds it.
 */
async function claimReferenceId(
  ctx: ServiceContext,
  kind: ReferenceKind,
  id: string,
  documentId: string,
): Promise<boolean> {
  // The claim runs beside the token's check, before it is known to pass: a token the directory does not hold claims
  // nothing (its request answers 401 from the check), so a guessed token cannot hold an id even for a moment.
  const hash = ctx.user.tokenHash;
  // (A WHERE either way: SQLite reads INSERT … SELECT … ON CONFLICT only with one.)
  const bearer =
    hash === null ? sql`WHERE true` : sql`WHERE EXISTS (SELECT 1 FROM access_tokens WHERE token_hash = ${hash})`;
  const taken = await ctx.dir
    .insert(referenceIds)
    .select(sql`SELECT ${kind}, ${id}, ${documentId}, ${ctx.now} ${bearer}`)
    .onConflictDoNothing()
    .returning({ id: referenceIds.id });
  return taken.length > 0;
}

/** Gives back a claim this request took (its create failed); a failure is logged: the repair deletes what is left. */
async function releaseReferenceIdQuietly(
  ctx: ServiceContext,
  kind: ReferenceKind,
  id: string,
  documentId: string,
): Promise<void> {
  try {
    await ctx.dir
      .delete(referenceIds)
      .where(
        and(
          eq(referenceIds.kind, kind),
          eq(referenceIds.id, id),
          eq(referenceIds.documentId, documentId),
          eq(referenceIds.claimedAt, ctx.now),
        ),
      );
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "reference id release failed; the scheduler's repair deletes it",
        kind,
        id,
        error: String(err),
      }),
    );
  }
}

/**
 * Claims the client's `id` beside `first` (the create's first read, already started: the same round trip), then
 * runs `write` with the read's results and whether the id is held by anyone else — `write` checks access first and
 * answers 409 for a held id after it, so a caller without access still sees 404. Without an `id` (one the server
 * issues) nothing is claimed. When the read or `write` fails after this call took the id, it is given back before
 * the error is answered (a give-back that fails is left to the repair).
 */
export async function withClaimedReferenceId<R, T>(
  ctx: ServiceContext,
  claim: { kind: ReferenceKind; id: string | undefined; documentId: string },
  first: Promise<R>,
  write: (results: R, heldElsewhere: boolean) => Promise<T>,
): Promise<T> {
  const { kind, id, documentId } = claim;
  if (id === undefined) return write(await first, false);
  return withClaim({
    claim: claimReferenceId(ctx, kind, id, documentId),
    alongside: first,
    claimFirst: false,
    write: (fresh, results) => write(results, !fresh),
    giveBack: async (fresh) => {
      if (fresh) await releaseReferenceIdQuietly(ctx, kind, id, documentId);
    },
  });
}

/** How old a claim must be before the repair may take it for an interrupted create (the shard write follows within seconds). */
export const REFERENCE_ID_GRACE_MS = 5 * 60_000;
/** How far back the scheduler's tick looks. */
const WINDOW_MS = 24 * 60 * 60_000;

interface ClaimRow {
  kind: ReferenceKind;
  id: string;
  document_id: string;
  claimed_at: number;
}

export interface ReferenceIdRepair {
  /** Claims deleted: taken before the grace period, and no reference of that kind holds the id in the claim's shard. */
  deleted: number;
  /** Claims written for references that had none (references from before the directory kept ids, an interrupted claim). */
  added: number;
}

/** The index of client-chosen reference ids as src/tenancy/operations/directoryIndex.ts repairs it. */
const REFERENCE_IDS: DirectoryIndex<ClaimRow, Omit<ClaimRow, "claimed_at">, Omit<ClaimRow, "claimed_at">> = {
  orphans: {
    graceMs: REFERENCE_ID_GRACE_MS,
    claims: {
      sql: `SELECT kind, id, document_id, claimed_at FROM reference_ids
        WHERE claimed_at < ?1 AND claimed_at > ?2 AND (kind, id) > (json_extract(?3, '$[0]'), json_extract(?3, '$[1]'))
        ORDER BY kind, id LIMIT ?4`,
      bind: (before, since, key, limit) => [before, since, key, limit],
    },
    firstKey: JSON.stringify(["", ""]),
    keyOf: (c) => JSON.stringify([c.kind, c.id]),
    ownerOf: (c) => c.document_id,
    sameClaim: (c) => `${c.kind} ${c.id}`,
    // Any reference of the claim's kind with its id, deleted or not.
    held: {
      sql: `SELECT 'clause' AS kind, id, document_id FROM clause_references WHERE id IN (SELECT value FROM json_each(?1))
        UNION ALL SELECT 'table', id, document_id FROM table_references WHERE id IN (SELECT value FROM json_each(?2))`,
      bind: (rows) =>
        (["clause", "table"] as const).map((kind) =>
          JSON.stringify(rows.filter((r) => r.kind === kind).map((r) => r.id)),
        ),
    },
    heldBy: (r) => [`${r.kind} ${r.id}`],
    deleteClaim: {
      sql: `DELETE FROM reference_ids WHERE kind = ?1 AND id = ?2 AND document_id = ?3 AND claimed_at = ?4`,
      bind: (r) => [r.kind, r.id, r.document_id, r.claimed_at],
    },
  },
  missing: {
    records: "shards",
    wanted: [
      {
        sql: `SELECT 'clause' AS kind, id, document_id FROM ${TABLE_OF.clause} WHERE created_at > ?1
          UNION ALL SELECT 'table', id, document_id FROM ${TABLE_OF.table} WHERE created_at > ?1`,
        bind: (since) => [since],
      },
    ],
    claimsOf: (r) => [[r.kind, r.id, r.document_id]],
    insertClaims: {
      sql: `INSERT INTO reference_ids (kind, id, document_id, claimed_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), ?2 FROM json_each(?1) WHERE true
        ON CONFLICT (kind, id) DO NOTHING`,
      bind: (chunk, now) => [chunk, now],
    },
  },
};

/**
 * The repair of creates interrupted between the directory and a shard (docs/scaling.md "Reference ids"):
 * 1. every claim taken after `since` and more than REFERENCE_ID_GRACE_MS before `now` whose shard
 *    (`shardD1Of(documentId)`) holds no reference of its kind with that id — deleted or not — is deleted: a create
 *    whose shard write failed or never ran, and whose give-back failed. The delete names the claim's time, so an id
 *    claimed again meanwhile stays.
 * 2. every shard's references (both kinds, any id) created after `since` without a claim get one. An id another
 *    document's claim holds is left alone (two references from before the directory that raced on two shards: the
 *    claim decides from now on).
 * Idempotent; run every minute by the scheduler (a day back); `since` 0 is a full pass.
 */
export async function reconcileReferenceIds(
  env: Env,
  now: number,
  since = now - WINDOW_MS,
): Promise<ReferenceIdRepair> {
  const { deleted, added } = await reconcileIndex(env, REFERENCE_IDS, now, since);
  return { deleted, added };
}
