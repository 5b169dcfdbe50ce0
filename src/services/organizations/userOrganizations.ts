/**
 * The directory index of memberships (docs/scaling.md "The directory index of memberships"): `user_organizations`
 * holds, per user and organization, what `GET /organization/all` answers, so the listing is one statement in the
 * directory beside the token's check instead of one on every shard database.
 *
 * Every write that changes a membership (or, later, an organization's name) writes its shard first and then this
 * index, an upsert by (user, organization) carrying the shard's versions (the organization's `updated_at`, the
 * membership's `updated_at`): a row is never replaced by an older version, so a write and the repair may cross. The
 * index statement follows the shard batch in the route's next round trip (beside a notification when there is one),
 * and a failure of it is logged, not answered: the shard write stands and `reconcileUserOrganizations` (the
 * per-minute tick) fills the index from the shard.
 */
import { sql } from "drizzle-orm";
import type { Env } from "../../env";
import { reconcileIndex, servedHereSql, type DirectoryIndex, type ServiceContext } from "../context";

/** One membership as the index holds it (the organization's fields, the member's role, and the shard's versions). */
export interface MembershipRow {
  userId: string;
  organizationId: string;
  name: string;
  ownerId: string;
  role: "owner" | "admin" | "member";
  createdAt: number;
  updatedAt: number;
  memberUpdatedAt: number;
}

const ROW = (r: MembershipRow) => [
  r.userId,
  r.organizationId,
  r.name,
  r.ownerId,
  r.role,
  r.createdAt,
  r.updatedAt,
  r.memberUpdatedAt,
];

/**
 * The upsert of rows (a JSON array of ROW tuples) into the index, stamped with a time: its text around the two
 * values. A row is replaced only by the same or a newer version of both the organization and the membership; with
 * `onlyChanged`, only when something it holds differs (the repair, which so writes nothing on a quiet tick).
 */
function upsertParts(onlyChanged: boolean): [string, string, string] {
  const differs = onlyChanged
    ? ` AND (user_organizations.name IS NOT excluded.name OR user_organizations.owner_id IS NOT excluded.owner_id
        OR user_organizations.role IS NOT excluded.role OR user_organizations.created_at IS NOT excluded.created_at
        OR user_organizations.updated_at IS NOT excluded.updated_at OR user_organizations.member_updated_at IS NOT excluded.member_updated_at)`
    : "";
  return [
    `INSERT INTO user_organizations (user_id, organization_id, name, owner_id, role, created_at, updated_at, member_updated_at, synced_at)
    SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'), json_extract(value, '$[3]'),
      json_extract(value, '$[4]'), json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'), `,
    ` FROM json_each(`,
    `) WHERE true
    ON CONFLICT (user_id, organization_id) DO UPDATE SET name = excluded.name, owner_id = excluded.owner_id, role = excluded.role,
      created_at = excluded.created_at, updated_at = excluded.updated_at, member_updated_at = excluded.member_updated_at, synced_at = excluded.synced_at
    WHERE excluded.updated_at >= user_organizations.updated_at AND excluded.member_updated_at >= user_organizations.member_updated_at${differs}`,
  ];
}

/** The upsert as drizzle SQL, for a request's directory client. */
function upsertDrizzle(rows: readonly MembershipRow[], syncedAt: number) {
  const [a, b, c] = upsertParts(false);
  return sql`${sql.raw(a)}${syncedAt}${sql.raw(b)}${JSON.stringify(rows.map(ROW))}${sql.raw(c)}`;
}

/** The upsert's SQL for the repair: the time bound to `?1`, the JSON text of ROW tuples to `?2`. */
function upsertSql(onlyChanged: boolean) {
  const [a, b, c] = upsertParts(onlyChanged);
  return `${a}?1${b}?2${c}`;
}

/**
 * Writes `rows` (what the shard holds after the request's write) into the directory's index. Called after the shard
 * write has committed; a failure is logged and left to the repair, so the request still answers its write.
 */
export async function indexMemberships(
  ctx: Pick<ServiceContext, "dir" | "now">,
  rows: readonly MembershipRow[],
): Promise<void> {
  if (rows.length === 0) return;
  try {
    await ctx.dir.run(upsertDrizzle(rows, ctx.now));
  } catch (err) {
    const keys = rows.map((r) => `${r.userId}/${r.organizationId}`);
    console.error(
      JSON.stringify({
        level: "error",
        msg: "membership index write failed; the scheduler's repair fills it",
        keys,
        error: String(err),
      }),
    );
  }
}

/** How far back the tick looks for memberships changed in the shards. */
const WINDOW_MS = 24 * 60 * 60_000;
/** How old an index row must be before the repair checks it against its shard (a registration writes it beside the shard). */
export const USER_ORGANIZATIONS_GRACE_MS = 60_000;
/** Pages per shard (forward) and index rows checked (backward) per tick; a full pass (since 0) has no bound. */
const TICK_PAGES = 10;
const TICK_CHECKS = 200;

export interface UserOrganizationsRepair {
  /** Index rows written or corrected from the shards. */
  written: number;
  /** Index rows deleted: their membership no longer exists in its shard. */
  removed: number;
}

interface ShardMembership {
  user_id: string;
  organization_id: string;
  name: string;
  owner_id: string;
  role: MembershipRow["role"];
  created_at: number;
  updated_at: number;
  member_updated_at: number;
}

const fromShard = (r: ShardMembership): MembershipRow => ({
  userId: r.user_id,
  organizationId: r.organization_id,
  name: r.name,
  ownerId: r.owner_id,
  role: r.role,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  memberUpdatedAt: r.member_updated_at,
});

const MEMBERSHIP_COLUMNS = `om.user_id, om.organization_id, o.name, o.owner_id, om.role, o.created_at, o.updated_at, om.updated_at AS member_updated_at`;
const MEMBERSHIPS = `FROM organization_members om JOIN organizations o ON o.id = om.organization_id`;

interface IndexKey {
  user_id: string;
  organization_id: string;
  synced_at: number;
}

const byPair = (userId: string, organizationId: string) => `${userId} ${organizationId}`;
const pairs = (rows: { user_id: string; organization_id: string }[]) =>
  JSON.stringify(rows.map((r) => [r.user_id, r.organization_id]));

/** Forward: a shard's memberships changed at or after `since` by one indexed column, in pages by (column, org, user). */
const changedBy = (column: string) => ({
  sql: `SELECT ${MEMBERSHIP_COLUMNS}, ${column} AS k ${MEMBERSHIPS}
    WHERE ${column} >= ?1 AND (${column}, om.organization_id, om.user_id)
      > (json_extract(?2, '$[0]'), json_extract(?2, '$[1]'), json_extract(?2, '$[2]'))
      AND ${servedHereSql("om.organization_id")}
    ORDER BY ${column}, om.organization_id, om.user_id LIMIT ?3`,
  bind: (since: number, key: string, limit: number) => [since, key, limit],
});

/**
 * The index of memberships as src/tenancy/operations/directoryIndex.ts repairs it: its rows are claims carrying
 * their membership's values, walked least recently checked first, corrected and stamped when found.
 */
const MEMBERSHIPS_INDEX: DirectoryIndex<IndexKey, ShardMembership, ShardMembership & { k: number }> = {
  orphans: {
    graceMs: USER_ORGANIZATIONS_GRACE_MS,
    // Walked by its check stamp from the oldest, not a window back (`since` unused): the tick walks the whole index.
    claims: {
      sql: `SELECT user_id, organization_id, synced_at FROM user_organizations
        WHERE synced_at < ?1 AND (synced_at, user_id, organization_id)
          > (json_extract(?2, '$[0]'), json_extract(?2, '$[1]'), json_extract(?2, '$[2]'))
        ORDER BY synced_at, user_id, organization_id LIMIT ?3`,
      bind: (before, _since, key, limit) => [before, key, limit],
    },
    firstKey: JSON.stringify([-1, "", ""]),
    keyOf: (k) => JSON.stringify([k.synced_at, k.user_id, k.organization_id]),
    perTick: TICK_CHECKS,
    ownerOf: (k) => k.organization_id,
    sameClaim: (k) => byPair(k.user_id, k.organization_id),
    held: {
      sql: `SELECT ${MEMBERSHIP_COLUMNS} ${MEMBERSHIPS}
        WHERE (om.user_id, om.organization_id) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?1))`,
      bind: (keys) => [pairs(keys)],
    },
    heldBy: (r) => [byPair(r.user_id, r.organization_id)],
    // A row written again since it was read (a membership made anew) stays: the delete names the time it was read at.
    deleteClaim: {
      sql: `DELETE FROM user_organizations WHERE user_id = ?1 AND organization_id = ?2 AND synced_at = ?3`,
      bind: (k) => [k.user_id, k.organization_id, k.synced_at],
    },
    // Corrected where they differ (an older version is never written back), then every present row stamped checked.
    correct: { sql: upsertSql(true), bind: (found, now) => [now, JSON.stringify(found.map((r) => ROW(fromShard(r))))] },
    stamp: {
      sql: `UPDATE user_organizations SET synced_at = ?1
        WHERE (user_id, organization_id) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?2))`,
      bind: (found, now) => [now, pairs(found)],
    },
  },
  missing: {
    records: "shards",
    // Those whose row changed, then those whose organization did (a rename reaches every member).
    wanted: [changedBy("om.updated_at"), changedBy("o.updated_at")],
    paged: {
      firstKey: JSON.stringify([-1, "", ""]),
      keyOf: (r) => JSON.stringify([r.k, r.organization_id, r.user_id]),
      perTick: TICK_PAGES,
    },
    claimsOf: (r) => [ROW(fromShard(r))],
    insertClaims: { sql: upsertSql(true), bind: (chunk, now) => [now, chunk] },
  },
};

/**
 * The repair of the index (docs/scaling.md "The directory index of memberships"), both directions:
 * 1. forward, every shard at once: memberships whose row or organization changed at or after `since` (pages of 500
 *    in (updated_at, organization, user) order, at most TICK_PAGES per shard per tick) are written into the index
 *    where it lacks them or holds an older version — a write whose directory half failed;
 * 2. backward: the index rows checked least recently (TICK_CHECKS a tick, each older than the grace period) are
 *    looked up in their organization's shard: a row whose membership is gone is deleted (unless it was written
 *    again meanwhile), the others are corrected if they differ and stamped as checked, so the tick walks the
 *    whole index over time.
 * With `since` 0 (a full pass) both passes cover everything, which builds the index of a database from
 * before it. Idempotent; run every minute by the Worker's repairs.
 */
export async function reconcileUserOrganizations(
  env: Env,
  now: number,
  since = now - WINDOW_MS,
): Promise<UserOrganizationsRepair> {
  const { deleted, added, corrected } = await reconcileIndex(env, MEMBERSHIPS_INDEX, now, since);
  return { written: added + corrected, removed: deleted };
}
