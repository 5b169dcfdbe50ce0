/**
 * Moving a logical shard between D1 databases (src/tenancy/operations/move/engine.ts, src/tenancy/kernel/fence.ts; docs/scaling.md "Moving a logical shard",
 * step 8). These tests build their own organizations through the API, on a logical shard no other organization
 * uses and whose database under the map is SHARD_0, and move that shard out of SHARD_0 into SHARD_2 and SHARD_3. The
 * map is not flipped, so the organization is unreachable through the API afterwards, which is why only this file's
 * own shard moves. Every query is scoped to this file's shards: other files share the databases.
 */
import { env } from "cloudflare:workers";
import { bindingOf } from "../../src/tenancy/kernel/map";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { fenceRefusalOf, readFence, setFenceStatement, shardGuardStatement } from "../../src/tenancy/kernel/fence";
import {
  copyShardRows,
  dropMovedCopy,
  moveLogicalShard,
  ShardMoveError,
} from "../../src/tenancy/operations/move/engine";
import { asMover, digestShardTable, moveShapes, type TableReport } from "../../src/tenancy/operations/move/rows";
import { shardCondition } from "../../src/tenancy/kernel/keys";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { shardSuffix } from "../../src/lib/ids";
import { ok, registerUser, type RegisteredUser } from "../support/harness";
import { newD1Record, recordingD1 } from "../support/recordingD1";
import { addColumn, addRow, makeTable } from "../support/tableHarness";
import { para } from "../support/collab-peer";
import { finishedRuns } from "../support/automations";
import { word } from "../support/search";

/** The source: the database the map puts this file's organizations on. */
const DB = env.SHARD_0!;
const SHARD_2 = env.SHARD_2!;
const SHARD_3 = env.SHARD_3!;

/** Every shard table's (and the search entries') count and checksum of `logical` in `db`. */
async function digests(db: D1Database, logical: number): Promise<Record<string, TableReport>> {
  const { tables, search } = moveShapes();
  const out: Record<string, TableReport> = {};
  for (const shape of [...tables, search]) out[shape.name] = await digestShardTable(db, shape, logical);
  return out;
}

/** Ids of the search entries of `logical` in `db` whose indexed text matches `query` (FTS5, through search_fts). */
async function searchHits(db: D1Database, logical: number, query: string): Promise<string[]> {
  const cond = shardCondition("record_id", logical);
  const { results } = await db
    .prepare(
      `SELECT e.record_id AS id FROM search_fts JOIN search_entries e ON e.id = search_fts.rowid WHERE search_fts MATCH ? AND ${cond.sql}`,
    )
    .bind(`{title body}: ${query}`, ...cond.params)
    .all<{ id: string }>();
  return results.map((r) => r.id).sort();
}

async function shardRowCount(db: D1Database, logical: number, table: string, column: string): Promise<number> {
  const cond = shardCondition(column, logical);
  return (await db
    .prepare(`SELECT count(*) AS n FROM ${table} WHERE ${cond.sql}`)
    .bind(...cond.params)
    .first<number>("n"))!;
}

interface Org {
  id: string;
  logical: number;
  projectId: string;
  docId: string;
  rowId: string;
  docWord: string;
  rowWord: string;
}

/**
 * A new organization of `u` on a logical shard of SHARD_0 that holds nothing else there, in SHARD_2 or SHARD_3 and has no
 * fence there (and is not shard 0, the shard of every legacy id, nor in `avoid`); created again until one lands
 * there.
 */
async function emptyShardOrganization(u: RegisteredUser, avoid: Set<number>): Promise<{ id: string; logical: number }> {
  for (let attempt = 0; attempt < 80; attempt++) {
    const org = (await ok("POST", "/organization", { token: u.token, body: { name: `Movable ${attempt}` } })).data;
    const logical = logicalShardOfId(org._id)!;
    if (logical === 0 || avoid.has(logical) || bindingOf(logical) !== "SHARD_0") continue;
    // Nothing else of that shard in the source, nor in the targets (whose fences a move sets).
    // Organizations too: one with no workspace yet (an earlier try of this loop, a user's own) would move with it.
    const cond = shardCondition("id", logical);
    const others = await Promise.all(
      [DB, SHARD_2, SHARD_3].flatMap((db) =>
        [
          `SELECT count(*) AS n FROM workspaces WHERE ${cond.sql} AND organization_id <> ?`,
          `SELECT count(*) AS n FROM organizations WHERE ${cond.sql} AND id <> ?`,
        ].map((query) =>
          db
            .prepare(query)
            .bind(...cond.params, org._id)
            .first<number>("n"),
        ),
      ),
    );
    const fenced = await Promise.all(
      [DB, SHARD_2, SHARD_3].map((db) =>
        db.prepare(`SELECT count(*) AS n FROM shard_fence WHERE logical = ?`).bind(logical).first<number>("n"),
      ),
    );
    if ([...others, ...fenced].every((n) => n === 0)) return { id: org._id, logical };
  }
  throw new Error("no organization landed on an empty logical shard of SHARD_0 in 80 tries");
}

/** A whole organization's worth of records, as test/shared/shard-ids.test.ts builds it. */
async function buildOrganization(u: RegisteredUser, org: { id: string; logical: number }): Promise<Org> {
  const docWord = word("moved");
  const rowWord = word("rowtext");
  const ws = (await ok("POST", "/workspace", { token: u.token, body: { organizationId: org.id, name: "W" } })).data;
  const project = (await ok("POST", "/project", { token: u.token, body: { workspaceId: ws._id, name: "P" } })).data;
  const folder = (
    await ok("POST", "/document", { token: u.token, body: { projectId: project._id, name: "F", type: "FOLDER" } })
  ).data;
  const doc = (
    await ok("POST", "/document", {
      token: u.token,
      body: { projectId: project._id, parentId: folder._id, name: "D", type: "DOCUMENT" },
    })
  ).data;
  await ok("PUT", `/document/${doc._id}/content`, {
    token: u.token,
    body: { blocks: [para("b0", `The body holds ${docWord} here`)] },
  });
  const table = await makeTable(u.token, project._id, "T");
  const price = await addColumn(u.token, table.tableId, "Price", { type: "number" });
  const total = await addColumn(u.token, table.tableId, "Total", { type: "number" });
  const { row } = await addRow(u.token, table.tableId, { [table.nameColumnId]: rowWord, [price._id]: 4 });
  for (let i = 0; i < 6; i++) await addRow(u.token, table.tableId, { [table.nameColumnId]: `r${i}`, [price._id]: i });
  await ok("POST", `/table/column/${total._id}/computed/apply`, {
    token: u.token,
    body: {
      description: [{ kind: "text", text: "Price * 2" }],
      expression: {
        kind: "op",
        op: "*",
        args: [
          { kind: "column", columnId: price._id },
          { kind: "literal", value: 2 },
        ],
      },
    },
  });
  await ok("POST", "/snapshot", { token: u.token, body: { documentId: doc._id, name: "S" } });
  await ok("POST", "/table/reference", {
    token: u.token,
    body: {
      documentId: doc._id,
      tableId: table.tableId,
      columnId: table.nameColumnId,
      relatedRowId: null,
      type: "global",
    },
  });
  const automation = (
    await ok("POST", "/automation", {
      token: u.token,
      body: {
        projectId: project._id,
        name: "A",
        runFromButton: true,
        actions: [{ spec: { kind: "notify", title: "Hi" } }],
      },
    })
  ).data;
  await ok("POST", `/automation/${automation._id}/run`, { token: u.token });
  // The run goes on in the queue consumer, which writes (unguarded) into the shard: let it finish before any move.
  await finishedRuns(u.token, automation._id);
  return { ...org, projectId: project._id, docId: doc._id, rowId: row._id, docWord, rowWord };
}

/** A write batch carrying the fence's guard: renames the project; answers how the fence answered. */
async function guardedRename(
  db: D1Database,
  org: Org,
  name: string,
): Promise<"done" | "read-only" | "moved" | "other"> {
  try {
    await db.batch([
      shardGuardStatement(db, org.logical, "write"),
      db.prepare(`UPDATE projects SET name = ?1 WHERE id = ?2`).bind(name, org.projectId),
    ]);
    return "done";
  } catch (error) {
    return fenceRefusalOf(error) ?? "other";
  }
}

async function guardedRead(db: D1Database, org: Org): Promise<string | "read-only" | "moved" | "other"> {
  try {
    const [, res] = await db.batch<{ name: string }>([
      shardGuardStatement(db, org.logical, "read"),
      db.prepare(`SELECT name FROM projects WHERE id = ?1`).bind(org.projectId),
    ]);
    return res!.results[0]?.name ?? "absent";
  } catch (error) {
    return fenceRefusalOf(error) ?? "other";
  }
}

const projectName = (db: D1Database, org: Org) =>
  db.prepare(`SELECT name FROM projects WHERE id = ?1`).bind(org.projectId).first<string>("name");

let owner: RegisteredUser;
let moving: Org;
let staying: Org;
let stayingBefore: Record<string, TableReport>;

beforeAll(async () => {
  const u = await registerUser("Shard mover");
  // The moving organization is owned by `owner` and built by `u`, an admin of it: its owner is named by the
  // organization's row alone, which the target's foreign keys need before any workspace (shardMove.ts,
  // copyReferencedRows follows references of references).
  owner = await registerUser("Organization owner");
  const avoid = new Set([logicalShardOfId(u.organizationId)!, logicalShardOfId(owner.organizationId)!]);
  // The organization that stays, first: any other logical shard of the same database. The tries of these loops
  // that land elsewhere stay as organizations of their own, so the moving one is chosen last, on a shard that
  // holds no organization once it is chosen (a later try there would move with it: a flaky count of 2).
  const elsewhere = (id: string) => avoid.has(logicalShardOfId(id)!) || bindingOf(logicalShardOfId(id)!) !== "SHARD_0";
  let other = (await ok("POST", "/organization", { token: u.token, body: { name: "Staying" } })).data;
  while (elsewhere(other._id))
    other = (await ok("POST", "/organization", { token: u.token, body: { name: "Staying" } })).data;
  staying = await buildOrganization(u, { id: other._id, logical: logicalShardOfId(other._id)! });
  avoid.add(staying.logical);
  const org = await emptyShardOrganization(owner, avoid);
  await ok("POST", `/organization/${org.id}/member`, { token: owner.token, body: { email: u.email, role: "admin" } });
  moving = await buildOrganization(u, org);
  stayingBefore = await digests(DB, staying.logical);
});

// The databases outlive this file (other files share them): its shard's fences go back to their default (no row,
// active) and the copy it left in SHARD_3 is dropped, so a later guard or move meets nothing of this file's.
afterAll(async () => {
  if (!moving) return;
  for (const db of [SHARD_2, SHARD_3]) {
    await db.batch([setFenceStatement(db, moving.logical, "moved", "SHARD_0")]);
    await dropMovedCopy({ db, logical: moving.logical });
  }
  for (const db of [DB, SHARD_2, SHARD_3])
    await db.prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(moving.logical).run();
});

describe("the shard fence", () => {
  it("refuses a guarded write batch as a whole unless the shard is active, and a guarded read only when it moved", async () => {
    const { logical } = moving;
    expect(await readFence(DB, logical)).toEqual({ state: "active", movedTo: null });
    expect(await guardedRename(DB, moving, "P1")).toBe("done");
    expect(await projectName(DB, moving)).toBe("P1");

    await DB.batch([setFenceStatement(DB, logical, "read-only")]);
    expect(await readFence(DB, logical)).toEqual({ state: "read-only", movedTo: null });
    expect(await guardedRename(DB, moving, "P2")).toBe("read-only");
    expect(await projectName(DB, moving), "the batch's other statements are rolled back").toBe("P1");
    expect(await guardedRead(DB, moving)).toBe("P1");
    // Another logical shard in the same database is not fenced (renamed to the name it has: its digest stays).
    expect(await guardedRename(DB, staying, "P")).toBe("done");

    await DB.batch([setFenceStatement(DB, logical, "moved", "SHARD_1")]);
    expect(await readFence(DB, logical)).toEqual({ state: "moved", movedTo: "SHARD_1" });
    expect(await guardedRename(DB, moving, "P3")).toBe("moved");
    expect(await guardedRead(DB, moving)).toBe("moved");

    await DB.batch([setFenceStatement(DB, logical, "active")]);
    expect(await guardedRename(DB, moving, "P")).toBe("done");
    expect(fenceRefusalOf(new Error("UNIQUE constraint failed"))).toBeNull();
    expect(() => setFenceStatement(DB, logical, "moved")).toThrow();
    expect(() => shardGuardStatement(DB, 480, "write")).toThrow(RangeError);
  });
});

describe("moving a logical shard", () => {
  it("copies every table's rows of the shard from DB to SHARD_2 with equal counts and checksums, switches the fences, and drops the old copy", async () => {
    const { logical } = moving;
    const before = await digests(DB, logical);
    for (const table of [
      "workspaces",
      "projects",
      "documents",
      "document_contents",
      "tables",
      "columns",
      "rows",
      "cells",
      "snapshots",
      "table_references",
      "automations",
      "automation_runs",
      "search_entries",
    ]) {
      expect(before[table]!.rows, table).toBeGreaterThan(0);
    }
    expect(await searchHits(DB, logical, moving.docWord)).toEqual([moving.docId]);
    const cond = shardCondition("id", logical);
    expect(
      await DB.prepare(`SELECT owner_id FROM workspaces WHERE ${cond.sql}`)
        .bind(...cond.params)
        .raw(),
    ).not.toContainEqual([owner.id]);

    // A client keeps writing through the guard while the shard moves: every write is either acknowledged (and then
    // in the copy) or refused, read-only while the copy runs and moved after it.
    const answers: { name: string; answer: Awaited<ReturnType<typeof guardedRename>> }[] = [];
    let writing = true;
    const writer = (async () => {
      const started = Date.now();
      for (let i = 0; writing && Date.now() - started < 30_000; i++) {
        answers.push({ name: `during ${i}`, answer: await guardedRename(DB, moving, `during ${i}`) });
        await new Promise((r) => setTimeout(r, 1));
      }
    })();
    const seen = (answer: string) => answers.some((a) => a.answer === answer);
    const until = async (answer: string) => {
      for (let i = 0; i < 500 && !seen(answer); i++) await new Promise((r) => setTimeout(r, 2));
    };
    await until("done");
    const readsDuringCopy: string[] = [];
    onTestFinished(() => {
      writing = false;
    });
    // batchRows 4: every table of more than four rows is read and written over several pages.
    const report = await moveLogicalShard({
      from: DB,
      to: SHARD_2,
      logical,
      fromName: "SHARD_0",
      toName: "SHARD_2",
      batchRows: 4,
      onCopied: async (table) => {
        if (table !== "projects") return;
        await until("read-only");
        readsDuringCopy.push(await guardedRead(DB, moving));
      },
    });
    await until("moved");
    writing = false;
    await writer;
    expect(answers.filter((a) => !["done", "read-only", "moved"].includes(a.answer))).toEqual([]);
    expect(seen("read-only") && seen("moved")).toBe(true);
    // Once refused, never acknowledged again; the last acknowledged name is the one the copy holds.
    const firstRefused = answers.findIndex((a) => a.answer !== "done");
    expect(answers.slice(firstRefused).filter((a) => a.answer === "done")).toEqual([]);
    expect(await projectName(SHARD_2, moving)).toBe(answers[firstRefused - 1]!.name);
    expect(readsDuringCopy).toEqual([answers[firstRefused - 1]!.name]);

    // The source as the move left it (read-only, then moved: frozen), which only the acknowledged renames changed.
    const source = await digests(DB, logical);
    for (const [table, r] of Object.entries(source)) {
      if (table === "projects") expect(r.rows).toBe(before.projects!.rows);
      else expect(r, table).toEqual(before[table]);
    }
    expect(report.tables.map((t) => t.table)).toEqual(moveShapes().tables.map((s) => s.name));
    for (const t of report.tables) expect(t, t.table).toEqual(source[t.table]);
    expect(report.search).toEqual(source.search_entries);
    // The organization is a shard table and moves with it; only users are referenced from outside (every shard
    // keeps a copy of each, so none is missing).
    expect(report.tables.find((t) => t.table === "organizations")?.rows).toBe(1);
    expect(report.referenced.organizations).toBeUndefined();

    expect(await digests(SHARD_2, logical)).toEqual(source);
    expect(await readFence(DB, logical)).toEqual({ state: "moved", movedTo: "SHARD_2" });
    expect(await readFence(SHARD_2, logical)).toEqual({ state: "active", movedTo: null });
    expect(await guardedRename(SHARD_2, moving, "P")).toBe("done");
    // The target's index finds the document's body (from R2 content, carried from the source's entry) and the row's text.
    expect(await searchHits(SHARD_2, logical, moving.docWord)).toEqual([moving.docId]);
    expect(await searchHits(SHARD_2, logical, moving.rowWord)).toEqual([moving.rowId]);

    const dropped = await dropMovedCopy({ db: DB, logical, batchRows: 4 });
    expect(dropped.cells).toBe(before.cells!.rows);
    for (const [table, report] of Object.entries(await digests(DB, logical))) expect(report.rows, table).toBe(0);
    expect(await searchHits(DB, logical, moving.docWord)).toEqual([]);
    expect(await searchHits(DB, logical, moving.rowWord)).toEqual([]);
    // The other organization's shard is untouched in the source.
    expect(await digests(DB, staying.logical)).toEqual(stayingBefore);
    expect(stayingBefore.cells!.rows).toBeGreaterThan(0);
    // The organization moved with its shard; the users its rows name are in the target too.
    expect(
      await DB.prepare(`SELECT count(*) AS n FROM organizations WHERE id = ?1`).bind(moving.id).first<number>("n"),
    ).toBe(0);
    expect(
      await SHARD_2.prepare(`SELECT count(*) AS n FROM organizations WHERE id = ?1`).bind(moving.id).first<number>("n"),
    ).toBe(1);
    expect(
      await SHARD_2.prepare(`SELECT count(*) AS n FROM users WHERE id = ?1`).bind(owner.id).first<number>("n"),
    ).toBe(1);
    // A copy that is still the serving one is never dropped.
    await expect(dropMovedCopy({ db: SHARD_2, logical })).rejects.toThrow(ShardMoveError);
  });

  it("re-runs safely after an interrupted copy: no duplicate, no failure, and refuses a target that already serves the shard", async () => {
    const { logical } = moving;
    const before = await digests(SHARD_2, logical);
    expect(before.cells!.rows).toBeGreaterThan(0);

    // Into a database that serves the shard (its fence is active and it holds the rows): refused, nothing changes.
    await expect(
      moveLogicalShard({ from: SHARD_3, to: SHARD_2, logical, fromName: "SHARD_3", toName: "SHARD_2" }),
    ).rejects.toThrow(/serves logical shard/);

    // A move that stopped after step (a) and part of (b): fences set, the copy made, then part of it lost.
    await SHARD_2.batch([setFenceStatement(SHARD_2, logical, "read-only")]);
    await SHARD_3.batch([setFenceStatement(SHARD_3, logical, "moved", "SHARD_2")]);
    await copyShardRows({ from: SHARD_2, to: SHARD_3, logical, batchRows: 5 });
    const cond = shardCondition("workspace_id", logical);
    // The target's fence refuses every write but the mover's own (the shard baseline, migrations/shard/0000): the loss is made as the mover.
    await asMover(SHARD_3, [
      SHARD_3.prepare(`DELETE FROM cells WHERE rowid IN (SELECT rowid FROM cells WHERE ${cond.sql} LIMIT 3)`).bind(
        ...cond.params,
      ),
    ]);
    expect(
      (
        await digestShardTable(
          SHARD_3,
          moveShapes().tables.find((s) => s.name === "cells")!,
          logical,
        )
      ).rows,
    ).toBe(before.cells!.rows - 3);

    const report = await moveLogicalShard({
      from: SHARD_2,
      to: SHARD_3,
      logical,
      fromName: "SHARD_2",
      toName: "SHARD_3",
      batchRows: 5,
    });
    for (const t of report.tables) expect(t, t.table).toEqual(before[t.table]);
    expect(await digests(SHARD_3, logical)).toEqual(before);
    expect(await readFence(SHARD_2, logical)).toEqual({ state: "moved", movedTo: "SHARD_3" });
    expect(await readFence(SHARD_3, logical)).toEqual({ state: "active", movedTo: null });
    expect(await searchHits(SHARD_3, logical, moving.docWord)).toEqual([moving.docId]);

    // A run that stopped between (d)'s two writes (the target active, the source still read-only) is finished.
    await SHARD_2.batch([setFenceStatement(SHARD_2, logical, "read-only")]);
    const finished = await moveLogicalShard({
      from: SHARD_2,
      to: SHARD_3,
      logical,
      fromName: "SHARD_2",
      toName: "SHARD_3",
    });
    expect(finished.tables).toEqual(report.tables);
    expect(await readFence(SHARD_2, logical)).toEqual({ state: "moved", movedTo: "SHARD_3" });
    expect(await digests(SHARD_3, logical)).toEqual(before);

    // A second run of a finished move is refused at the source, which says where the shard went.
    await expect(
      moveLogicalShard({ from: SHARD_2, to: SHARD_3, logical, fromName: "SHARD_2", toName: "SHARD_3" }),
    ).rejects.toThrow(/already left SHARD_2 for SHARD_3/);
    await dropMovedCopy({ db: SHARD_2, logical });
    for (const [table, r] of Object.entries(await digests(SHARD_2, logical))) expect(r.rows, table).toBe(0);
  });

  it("stops on a checksum mismatch: the source is active again and the target holds nothing of the shard", async () => {
    const { logical } = moving;
    const before = await digests(SHARD_3, logical);
    // The target changes what it is given: a project copied into SHARD_2 gets another name.
    await SHARD_2.prepare(
      `CREATE TRIGGER shard_move_test_corrupt AFTER INSERT ON projects WHEN substr(new.id, 27, 2) = '${shardSuffix(logical)}'
       BEGIN UPDATE projects SET name = name || ' (changed)' WHERE id = new.id; END`,
    ).run();
    try {
      const error = await moveLogicalShard({
        from: SHARD_3,
        to: SHARD_2,
        logical,
        fromName: "SHARD_3",
        toName: "SHARD_2",
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ShardMoveError);
      expect((error as ShardMoveError).mismatches.map((m) => m.table)).toEqual(["projects"]);
      expect((error as ShardMoveError).mismatches[0]!.source.rows).toBe(
        (error as ShardMoveError).mismatches[0]!.target.rows,
      );
    } finally {
      await SHARD_2.prepare(`DROP TRIGGER shard_move_test_corrupt`).run();
    }
    expect(await readFence(SHARD_3, logical)).toEqual({ state: "active", movedTo: null });
    expect(await guardedRename(SHARD_3, moving, "P")).toBe("done");
    expect(await digests(SHARD_3, logical)).toEqual(before);
    for (const [table, r] of Object.entries(await digests(SHARD_2, logical))) expect(r.rows, table).toBe(0);
    expect(await shardRowCount(SHARD_2, logical, "search_entries", "record_id")).toBe(0);
    expect(await readFence(SHARD_2, logical)).toEqual({ state: "moved", movedTo: "SHARD_3" });
  });

  it("keeps every statement under D1's 100 bound parameters and every D1 batch to one page of rows", async () => {
    const { logical } = moving;
    const recorded = newD1Record();
    const recording = (db: D1Database) => recordingD1(db, recorded);
    const before = await digests(SHARD_3, logical);
    const batchRows = 20;
    const report = await moveLogicalShard({
      from: recording(SHARD_3),
      to: recording(SHARD_2),
      logical,
      fromName: "SHARD_3",
      toName: "SHARD_2",
      batchRows,
    });
    for (const t of report.tables) expect(t, t.table).toEqual(before[t.table]);
    expect(Math.max(...recorded.params)).toBeLessThanOrEqual(100);
    // automations has 31 columns, so its multi-row INSERTs come close to the limit.
    expect(Math.max(...recorded.params)).toBeGreaterThan(90);
    expect(Math.max(...recorded.batches)).toBeLessThanOrEqual(batchRows);
    expect(recorded.calls).toBeGreaterThan(0);
  });
});
