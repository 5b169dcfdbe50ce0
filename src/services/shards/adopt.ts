/**
 * A local database from before the service had shard databases keeps everything in the directory (`DB`). Adoption
 * merges each logical shard found there into the shard database the map names — which may already serve that
 * logical shard for organizations created since, so unlike a move it keeps the target's rows: the directory's rows
 * are inserted beside them (ids are unique), checked present in the target, and only then deleted from the
 * directory — and copies every user into every shard (docs/scaling.md, "Adopting a database from before the
 * shards"), and writes the directory's portal routes and reference ids of the records that lack them and builds its
 * index of memberships (full passes of the scheduler's repairs), and turns event-trigger rows on another
 * organization's project into pointers where that project is (pointCrossShardTriggerRows). `npm start` runs it
 * through `POST /admin/shards/adopt` on every start; with nothing left in the directory it moves nothing. Once the directory's shard tables are empty it drops them, so the directory
 * holds only its own kind's tables, as a database made after migrations were split per kind does (docs/scaling.md
 * "Migrations per kind of database").
 */
import { CLAIMS, deleteRows, insertStatements, moveShapes, pages, q, shardDeleteOrder, shardTables, type TableShape } from "../../db/shardRows";
import { shardCondition } from "../../db/shardKeys";
import { groupByShard, logicalShardOfId } from "../../db/shardIds";
import { servingBindingOf } from "../../db/placements";
import type { Env } from "../../env";
import { repairUserCopies } from "../identity/users";
import { reconcilePortalRoutes } from "../portals/routes";
import { reconcileReferenceIds } from "../references/referenceIds";
import { reconcileUserOrganizations } from "../organizations/userOrganizations";
import { shardBindings, type ShardBinding } from "../../db/shards";

/**
 * One id per logical shard present in the directory: an organization's, and a workspace's (issued beside its
 * organization, so it names the same shard; a workspace is found even if its organization row were missing).
 * Grouped by the id's shard digits (plain 26-character ids, shard 0, are one group), so the answer is at most a
 * row per logical shard however many records there are.
 */
const PRESENCE = ["organizations", "workspaces"].map((t) => `SELECT min(id) AS id FROM ${t} GROUP BY CASE WHEN length(id) = 28 THEN substr(id, 27, 2) END`);

export interface AdoptionReport {
  /** Users copied into shard databases that lacked them. */
  usersCopied: number;
  /** Each logical shard moved out of the directory: where to and how many rows per table. */
  moved: { logical: number; to: string; rows: number }[];
  /** Portal routes written for published entries that had none (every entry, however old, is looked at). */
  portalRoutesAdded: number;
  /** Reference ids claimed for references that had none (every reference, however old, is looked at). */
  referenceIdsAdded: number;
  /** Rows of the directory's index of memberships written, and removed, by its full pass. */
  userOrganizations: { written: number; removed: number };
  /** Shard tables dropped from the directory, now empty (a database migrated before migrations per kind; once). */
  directoryTablesDropped: string[];
  /** Event-trigger rows watching another logical shard's project turned into pointers (docs/scaling.md "Triggers across organizations"). */
  triggersPointed: number;
}

export async function adoptLegacyData(env: Env, now: number): Promise<AdoptionReport> {
  // Every user, however old: a shard's records reference users, and its copy must hold them before any row moves.
  const usersCopied = await repairUserCopies(env, 0, 0);
  const present = new Set<number>();
  // A directory made by its own kind's migrations has no shard tables: nothing to look for.
  const legacy = await shardTablesIn(env.DB);
  for (const sql of legacy.length ? PRESENCE : []) {
    const { results } = await env.DB.prepare(sql).all<{ id: string }>();
    for (const { id } of results) {
      const logical = logicalShardOfId(id);
      if (logical !== null) present.add(logical);
    }
  }
  const moved: AdoptionReport["moved"] = [];
  for (const logical of [...present].sort((a, b) => a - b)) {
    const to = servingBindingOf(logical);
    moved.push({ logical, to, rows: await mergeShard(env.DB, env[to]!, logical, new Set([...legacy, CLAIMS.name])) });
  }
  // Entries published before the directory kept portal routes, and those just adopted, get theirs.
  const { added: portalRoutesAdded } = await reconcilePortalRoutes(env, now, 0);
  // Likewise the reference ids of references made before the directory kept them (docs/scaling.md "Reference ids").
  const { added: referenceIdsAdded } = await reconcileReferenceIds(env, now, 0);
  // And the directory's index of memberships: every membership in every shard, every index row checked.
  const userOrganizations = await reconcileUserOrganizations(env, now, 0);
  const directoryTablesDropped = legacy.length ? await dropEmptyShardTables(env.DB, legacy) : [];
  // Event triggers on another organization's project saved while both shared a database become pointers.
  const pointed = await Promise.all(shardBindings().map((b) => pointCrossShardTriggerRows(env, env[b]!)));
  const triggersPointed = pointed.reduce((a, n) => a + n, 0);
  return { usersCopied, moved, portalRoutesAdded, referenceIdsAdded, userOrganizations, directoryTablesDropped, triggersPointed };
}

/**
 * The shard kind's tables a database holds, in the order they can be dropped: the organization data children first,
 * then the search index and the fence's own tables (docs/scaling.md "Migrations per kind of database").
 */
async function shardTablesIn(db: D1Database): Promise<string[]> {
  const order = [...shardDeleteOrder().map((shape) => shape.name), "search_fts", ...shardTables.keys(), "shard_guard", "shard_mover"];
  // The claims move with their shards, but they are the directory's own table too.
  const kind = [...new Set(order)].filter((name) => name !== CLAIMS.name);
  const { results } = await db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?))")
    .bind(JSON.stringify(kind))
    .all<{ name: string }>();
  const held = new Set(results.map((r) => r.name));
  return kind.filter((name) => held.has(name));
}

/**
 * Drops `tables` from the directory when none of the organization data among them holds a row (one batch: D1 runs
 * it as one transaction, so the directory keeps all of them or none). Their indexes and triggers go with them; the
 * search index's FTS5 shadow tables go with search_fts. Returns what was dropped (nothing while a row remains).
 */
async function dropEmptyShardTables(db: D1Database, tables: string[]): Promise<string[]> {
  const data = new Set(shardDeleteOrder().map((shape) => shape.name));
  const probes = tables.filter((t) => data.has(t)).map((t) => db.prepare(`SELECT EXISTS(SELECT 1 FROM ${q(t)}) AS held`));
  const held = probes.length ? await db.batch<{ held: number }>(probes) : [];
  if (held.some((r) => r.results[0]?.held)) return [];
  await db.batch(tables.map((t) => db.prepare(`DROP TABLE IF EXISTS ${q(t)}`)));
  return tables;
}

const PAGE_ROWS = 200;

/**
 * Copies `logical`'s rows from `from` into `to` beside what `to` holds, verifies every one arrived, then deletes them
 * from `from`. Only the tables and columns `from` has: a table or column made after migrations were split per kind
 * (notification_outbox, organization_members.updated_at) exists in shards only, and the copy takes its default.
 */
async function mergeShard(from: D1Database, to: D1Database, logical: number, held: ReadonlySet<string>): Promise<number> {
  const { tables: all, search } = moveShapes();
  const present = all.filter((shape) => held.has(shape.name));
  const columns = await from.batch<{ name: string }>(present.map((shape) => from.prepare("SELECT name FROM pragma_table_info(?1)").bind(shape.name)));
  const tables = present.map((shape, i) => {
    const has = new Set(columns[i]!.results.map((c) => c.name));
    return { ...shape, columns: shape.columns.filter((c) => has.has(c)) };
  });
  let rows = 0;
  for (const shape of [...tables, search]) {
    for await (const page of pages(from, shape, logical, PAGE_ROWS)) {
      // The target's triggers made a search entry for each copied document without its body (which comes from R2):
      // the directory's entry, which has it, replaces that one.
      const conflict =
        shape === search
          ? `ON CONFLICT (record_id) DO UPDATE SET ${shape.columns.filter((c) => c !== "record_id").map((c) => `${q(c)} = excluded.${q(c)}`).join(", ")}`
          : "ON CONFLICT DO NOTHING";
      await to.batch(insertStatements(to, shape.name, shape.columns, page, conflict));
      rows += page.length;
    }
  }
  for (const shape of tables) await verifyPresent(from, to, shape, logical);
  for (const shape of shardDeleteOrder().filter((s) => s === search || held.has(s.name))) await deleteRows(from, shape, logical, PAGE_ROWS);
  return rows;
}

/** Every row of `shape` on `logical` in `from` is in `to` (by its key), or the adoption stops before deleting anything. */
async function verifyPresent(from: D1Database, to: D1Database, shape: TableShape, logical: number) {
  const cond = shardCondition(shape.key, logical);
  const keys = shape.order.map(q).join(", ");
  for await (const page of pages(from, { ...shape, columns: shape.order }, logical, PAGE_ROWS)) {
    const wanted = JSON.stringify(page);
    const found = await to
      .prepare(`SELECT count(*) AS n FROM ${q(shape.name)} WHERE ${cond.sql} AND json_array(${keys}) IN (SELECT value FROM json_each(?))`)
      .bind(...cond.params, wanted)
      .first<number>("n");
    if (found !== page.length) throw new Error(`adoption of logical shard ${logical}: ${page.length - (found ?? 0)} rows of ${shape.name} did not arrive; nothing deleted`);
  }
}

/** The logical shard digits an id ends with, in SQL ('00' for an id of the older plain form, logical shard 0). */
const shardDigits = (column: string) => `CASE WHEN length(${column}) = 28 THEN substr(${column}, 27, 2) ELSE '00' END`;

/**
 * Event-trigger rows kept beside their automation that watch a project of another logical shard — saved before
 * pointers existed, while both organizations shared this database — turned into pointers in the watched project's
 * database, then deleted here (so a move of either logical shard carries what belongs to it). Run on every shard
 * database; answers how many rows it turned. Pointers first: a failure between leaves both, and the
 * event then finds the automation twice, which the run's unique (automation, event) makes one run.
 */
async function pointCrossShardTriggerRows(env: Partial<Record<ShardBinding, D1Database>>, d1: D1Database): Promise<number> {
  const { results } = await d1
    .prepare(
      `SELECT t.automation_id, t.position, t.project_id, t.event, a.version FROM automation_event_triggers t JOIN automations a ON a.id = t.automation_id
       WHERE ${shardDigits("t.project_id")} <> ${shardDigits("t.automation_id")}`,
    )
    .all<{ automation_id: string; position: number; project_id: string; event: string; version: number }>();
  if (!results.length) return 0;
  await Promise.all(
    [...groupByShard(results, (r) => r.project_id)].map(([binding, list]) =>
      env[binding]!
        .prepare(
          `INSERT INTO automation_remote_triggers (project_id, event, automation_id, position, version)
           SELECT j.value ->> 0, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4 FROM json_each(?1) j WHERE true
           ON CONFLICT (project_id, event, automation_id, position) DO UPDATE SET version = MAX(version, excluded.version)`,
        )
        .bind(JSON.stringify(list.map((r) => [r.project_id, r.event, r.automation_id, r.position, r.version])))
        .run(),
    ),
  );
  await d1
    .prepare(`DELETE FROM automation_event_triggers WHERE EXISTS (SELECT 1 FROM json_each(?1) j WHERE j.value ->> 0 = automation_id AND j.value ->> 1 = position)`)
    .bind(JSON.stringify(results.map((r) => [r.automation_id, r.position])))
    .run();
  return results.length;
}
