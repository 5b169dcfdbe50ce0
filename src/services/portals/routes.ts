/**
 * Portal routes (docs/scaling.md "Portal routes"): the directory's record of which project holds each public name of
 * a published portal — `slug:<slug>` from the moment the slug is claimed, `domain:<domain>` once the domain is
 * verified (a pending domain may be claimed by several portals; the first to verify wins). Every shard database
 * keeps its `published_entries` unique by index, but an index holds inside one database only; the route's primary
 * key holds across all of them. A claim writes its routes in the directory first, then the entry in its shard; a
 * release writes the shard first, then deletes the routes. Either can stop between the two databases; the
 * scheduler's `reconcilePortalRoutes` repairs both halves.
 *
 * The table is created by hand (migrations/directory/0000) and kept out of the drizzle schema, like `shard_placements`; the
 * drizzle table below only lets its statements ride in a D1 batch.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import type { Env } from "../../env";
import { conflict } from "../../errors";
import { reconcileIndex, withClaim, type DirectoryIndex } from "../context";
import type { ServiceContext } from "../context";

export const portalRoutes = sqliteTable("portal_routes", {
  name: text("name").primaryKey(),
  projectId: text("project_id").notNull(),
  claimedAt: integer("claimed_at").notNull(),
});

export const slugRoute = (slug: string) => `slug:${slug}`;
export const domainRoute = (domain: string) => `domain:${domain}`;

/** Names to take (`claim`) and names only to find free (`check`: a pending domain, which takes no route yet). */
export interface RouteNames {
  claim: string[];
  check: string[];
}

function conflictFor(name: string) {
  return name.startsWith("slug:")
    ? conflict("This slug is already in use")
    : conflict("This domain is already used by another portal");
}

/**
 * One directory batch (one round trip, one transaction): who holds any of the names, then the claimed names inserted
 * for `projectId` only if no other project holds any of them — a name this project already holds keeps its route,
 * with the claim's time (so the repair does not take it for an interrupted claim). 409 when another project holds
 * one. Answers the names this claim took fresh, which a failure before the shard write gives back (releaseRoutes).
 */
export async function claimRoutes(ctx: ServiceContext, projectId: string, names: RouteNames): Promise<string[]> {
  const { dir } = ctx;
  const all = [...names.claim, ...names.check];
  if (all.length === 0) return [];
  const holders = dir
    .select({ name: portalRoutes.name, projectId: portalRoutes.projectId })
    .from(portalRoutes)
    .where(inArray(portalRoutes.name, all));
  const insert = dir
    .insert(portalRoutes)
    .select(
      sql`SELECT value, ${projectId}, ${ctx.now} FROM json_each(${JSON.stringify(names.claim)})
          WHERE NOT EXISTS (SELECT 1 FROM portal_routes WHERE name IN (SELECT value FROM json_each(${JSON.stringify(all)})) AND project_id <> ${projectId})`,
    )
    .onConflictDoUpdate({
      target: portalRoutes.name,
      set: { claimedAt: sql`excluded.claimed_at` },
      setWhere: sql`portal_routes.project_id = excluded.project_id`,
    });
  const [held] = names.claim.length > 0 ? await dir.batch([holders, insert]) : [await holders];
  // A slug held by another project answers before its domain, as the shard's unique indexes would.
  const taken = all.find((n) => held.some((h) => h.name === n && h.projectId !== projectId));
  if (taken) throw conflictFor(taken);
  return names.claim.filter((n) => !held.some((h) => h.name === n));
}

/** Deletes `projectId`'s routes of `names` (after the shard write that released them, or a claim that failed). */
export async function releaseRoutes(ctx: ServiceContext, projectId: string, names: readonly string[]): Promise<void> {
  if (names.length === 0) return;
  await ctx.dir
    .delete(portalRoutes)
    .where(and(inArray(portalRoutes.name, [...names]), eq(portalRoutes.projectId, projectId)));
}

/** releaseRoutes whose failure is logged, not answered: the shard has the truth, and the repair deletes what is left. */
export async function releaseRoutesQuietly(
  ctx: ServiceContext,
  projectId: string,
  names: readonly string[],
): Promise<void> {
  try {
    await releaseRoutes(ctx, projectId, names);
  } catch (err) {
    console.error(
      JSON.stringify({
        level: "error",
        msg: "portal route release failed; the scheduler's repair deletes it",
        names,
        error: String(err),
      }),
    );
  }
}

/**
 * Claims `names` beside `alongside` (the same round trip: the fan-out check of the other shards, a DNS lookup), then
 * runs `write` (the shard's batch). When either fails after routes were taken fresh, they are given back before
 * the error is answered (a give-back that fails is left to the repair).
 */
export async function withClaimedRoutes<T>(
  ctx: ServiceContext,
  projectId: string,
  names: RouteNames,
  alongside: Promise<unknown>,
  write: () => Promise<T>,
): Promise<T> {
  return withClaim({
    claim: claimRoutes(ctx, projectId, names),
    alongside,
    claimFirst: true,
    write: () => write(),
    giveBack: (fresh) => releaseRoutesQuietly(ctx, projectId, fresh),
  });
}

/** How old a route must be before the repair may take it for an interrupted claim (a claim's shard write follows within seconds). */
export const ROUTE_GRACE_MS = 5 * 60_000;
/** How far back the scheduler's tick looks for entries whose route is missing. */
const ENTRY_WINDOW_MS = 24 * 60 * 60_000;

interface RouteRow {
  name: string;
  project_id: string;
  claimed_at: number;
}

interface EntryRow {
  project_id: string;
  slug: string;
  domain: string | null;
  domain_verified_at: number | null;
}

/** The route names an entry holds: its slug, and its domain once verified. */
function namesOfEntry(e: EntryRow): string[] {
  return [slugRoute(e.slug), ...(e.domain && e.domain_verified_at !== null ? [domainRoute(e.domain)] : [])];
}

export interface RouteRepair {
  /** Routes deleted: claimed before the grace period and held by no entry of their project. */
  deleted: number;
  /** Routes written for entries that held a name without one (entries from before routes, an interrupted back-fill). */
  added: number;
}

/** The index of portal names as src/tenancy/operations/directoryIndex.ts repairs it. */
const PORTAL_ROUTES: DirectoryIndex<RouteRow, EntryRow, EntryRow> = {
  orphans: {
    graceMs: ROUTE_GRACE_MS,
    claims: {
      sql: `SELECT name, project_id, claimed_at FROM portal_routes
        WHERE claimed_at < ?1 AND claimed_at > ?2 AND name > ?3 ORDER BY name LIMIT ?4`,
      bind: (before, since, key, limit) => [before, since, key, limit],
    },
    firstKey: "",
    keyOf: (r) => r.name,
    ownerOf: (r) => r.project_id,
    sameClaim: (r) => `${r.project_id} ${r.name}`,
    held: {
      sql: `SELECT project_id, slug, domain, domain_verified_at FROM published_entries
        WHERE project_id IN (SELECT value FROM json_each(?1))`,
      bind: (rows) => [JSON.stringify([...new Set(rows.map((r) => r.project_id))])],
    },
    heldBy: (e) => namesOfEntry(e).map((n) => `${e.project_id} ${n}`),
    deleteClaim: {
      sql: `DELETE FROM portal_routes WHERE name = ?1 AND project_id = ?2 AND claimed_at = ?3`,
      bind: (r) => [r.name, r.project_id, r.claimed_at],
    },
  },
  missing: {
    records: "shards",
    wanted: [
      {
        sql: `SELECT project_id, slug, domain, domain_verified_at FROM published_entries WHERE updated_at > ?1`,
        bind: (since) => [since],
      },
    ],
    claimsOf: (e) => namesOfEntry(e).map((name) => [name, e.project_id]),
    insertClaims: {
      sql: `INSERT INTO portal_routes (name, project_id, claimed_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), ?2 FROM json_each(?1) WHERE true
        ON CONFLICT (name) DO NOTHING`,
      bind: (chunk, now) => [chunk, now],
    },
  },
};

/**
 * The repair of writes interrupted between the directory and a shard (docs/scaling.md "Portal routes"):
 * 1. every route claimed after `since` and more than ROUTE_GRACE_MS before `now` whose project holds no entry with
 *    that name in its shard (`shardD1Of(projectId)`) is deleted — a claim whose shard write failed or never ran, or
 *    a release whose delete of the route failed. The delete names the claim's time, so a route claimed again
 *    meanwhile stays. The tick looks a day back, so its cost follows the day's claims, not every portal; a release
 *    lost on a route claimed earlier waits for a full pass (`since` 0).
 * 2. every shard's entries updated after `since` (a day back; 0 for a full pass) whose slug or verified domain has
 *    no route get one. A name another project's route holds is left alone (two entries from before routes that
 *    raced on two shards: the route decides from now on, and the other entry is reported here).
 * Idempotent; run every minute by the scheduler; `since` 0 is a full pass.
 */
export async function reconcilePortalRoutes(
  env: Env,
  now: number,
  since = now - ENTRY_WINDOW_MS,
): Promise<RouteRepair> {
  const { deleted, added } = await reconcileIndex(env, PORTAL_ROUTES, now, since);
  return { deleted, added };
}
