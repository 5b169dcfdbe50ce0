/**
 * A shard move driven in steps through POST /admin/shards/move (docs/scaling.md "Moving a logical shard", "A move in
 * steps"): each call does at most `maxCalls` D1 calls' worth of work and answers a cursor until the move is done. A
 * move in many small steps (tiny budget and pages, several tables of several pages) reaches the state a one-call move
 * reaches; a copy that does not verify stops the move with 409 and leaves the source active and the target's copy
 * fenced off, which POST /admin/shards/abort then deletes in calls within the same budget, as it does a move it stops;
 * a cursor the route did not issue is 400. The shard is moved back (and its old copies dropped) at the end, so later
 * files find it where the map puts it.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servingBindingOf } from "../../src/tenancy/kernel/placements";
import { readFence, setFenceStatement } from "../../src/tenancy/kernel/fence";
import { digestShardTable, moveShapes, type TableReport } from "../../src/tenancy/operations/move/rows";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings, type ShardBinding } from "../../src/tenancy/kernel/map";
import { textToBase64Url } from "../../src/lib/base64";
import { shardSuffix } from "../../src/lib/ids";
import { abortShardMove, moveShardStep } from "../../src/tenancy/operations/moves";
import { ADMIN_TOKEN, addWorkspaceCollaborator, call, ok, registerUser, type RegisteredUser } from "../support/harness";
import { newD1Record, recordingD1 } from "../support/recordingD1";
import { allRows, bulkRows, makeTable, type TestTable } from "../support/tableHarness";

/** Every shard table's (and the search entries') count and checksum of `logical` in `db`. */
async function digests(db: D1Database, logical: number): Promise<Record<string, TableReport>> {
  const { tables, search } = moveShapes();
  const out: Record<string, TableReport> = {};
  for (const shape of [...tables, search]) out[shape.name] = await digestShardTable(db, shape, logical);
  return out;
}

/**
 * What a move through the route leaves in its target: the source's tables as they were, and in the audit log one
 * entry more per organization moved (admin.shard_moved, written by the route once the move is done).
 */
function expectMovedCopy(moved: Record<string, TableReport>, before: Record<string, TableReport>) {
  const { audit_log: audit, ...rest } = moved;
  const { audit_log: auditBefore, ...held } = before;
  expect(rest).toEqual(held);
  expect(audit!.rows).toBe(auditBefore!.rows + before.organizations!.rows);
}

/** The audit entries of `kind` of the mover's organization, newest first (its owner reads them). */
async function shardEntries(kind: string): Promise<any[]> {
  return (await ok("GET", `/organization/${owner.organizationId}/audit`, { token: owner.token, query: { kind } })).data;
}

/** Drives a move through the route, a step at a time, until it is done or refused; the answers of every step. */
async function moveInSteps(
  body: Record<string, unknown>,
): Promise<{ steps: any[]; last: { status: number; body: any } }> {
  const steps: any[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 2000; i++) {
    const res = await call("POST", "/admin/shards/move", {
      token: ADMIN_TOKEN,
      body: { ...body, ...(cursor && { cursor }) },
    });
    if (res.status !== 200 || res.body.data.done) return { steps, last: res };
    steps.push(res.body.data);
    cursor = res.body.data.cursor;
  }
  throw new Error("the move did not finish in 2000 steps");
}

let owner: RegisteredUser;
let table: TestTable;
let logical: number;
let home: ShardBinding;
let away: ShardBinding;

beforeAll(async () => {
  owner = await registerUser("Step mover");
  logical = logicalShardOfId(owner.workspaceId)!;
  home = servingBindingOf(logical);
  const bindings = shardBindings();
  away = bindings[(bindings.indexOf(home) + 2) % bindings.length]!;
  const project = (
    await ok("POST", "/project", {
      token: owner.token,
      body: { workspaceId: owner.workspaceId, name: "Stepping project" },
    })
  ).data;
  table = await makeTable(owner.token, project._id, "Ledger");
  await bulkRows(
    owner.token,
    table.tableId,
    Array.from({ length: 30 }, (_, k) => ({ [table.nameColumnId]: `step row ${k}` })),
  );
  // More users named by the shard's rows than a page holds (4 below): their copy takes several units, each within budget.
  for (const colleague of await Promise.all(Array.from({ length: 9 }, (_, k) => registerUser(`Step colleague ${k}`)))) {
    await addWorkspaceCollaborator(owner, owner.workspaceId, colleague, "viewer");
  }
});

afterAll(async () => {
  // Back where the map puts it, and no copy left behind in either database.
  if (!logical) return;
  if (servingBindingOf(logical) !== home) await moveInSteps({ logical, to: home });
  if ((await readFence(env[away]!, logical)).state === "moved")
    await call("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: away } });
});

describe("moving a logical shard in steps", () => {
  it("reaches, in many small steps, the state a one-call move reaches", async () => {
    const before = await digests(env[home]!, logical);
    for (const name of ["rows", "cells", "search_entries"]) expect(before[name]!.rows, name).toBeGreaterThan(8);

    const { steps, last } = await moveInSteps({ logical, to: away, maxCalls: 10, pageRows: 4 });
    expect(last.status).toBe(200);

    // Many steps, each with its cursor and progress; the phases in order.
    expect(steps.length).toBeGreaterThan(10);
    const phases = [...new Set(steps.map((s) => s.progress.phase))];
    expect(phases).toEqual(expect.arrayContaining(["copy", "verify"]));
    expect(phases.indexOf("copy")).toBeLessThan(phases.indexOf("verify"));
    for (const s of steps)
      expect(s).toMatchObject({
        done: false,
        cursor: expect.any(String),
        progress: { tables: moveShapes().tables.length + 1 },
      });
    const copied = steps.map((s) => s.progress.rowsCopied);
    expect(copied).toEqual([...copied].sort((a, b) => a - b));

    // The summary, as a one-call move answers it.
    const summary = last.body.data;
    expect(summary).toMatchObject({ done: true, logical, from: home, to: away, readOnlyMs: expect.any(Number) });
    for (const [name, report] of Object.entries(before)) expect(summary.rows[name], name).toBe(report.rows);

    // The target holds what the source held, table by table; the fences and the directory say it moved.
    expectMovedCopy(await digests(env[away]!, logical), before);
    expect(await readFence(env[home]!, logical)).toEqual({ state: "moved", movedTo: away });
    expect(await readFence(env[away]!, logical)).toEqual({ state: "active", movedTo: null });
    expect(
      await env.DB.prepare(`SELECT binding FROM shard_placements WHERE logical = ?1`)
        .bind(logical)
        .first<string>("binding"),
    ).toBe(away);
    expect(servingBindingOf(logical)).toBe(away);

    // The service routes the organization to the new database: a row written now is there only.
    const row = (
      await ok("POST", `/table/${table.tableId}/row`, {
        token: owner.token,
        body: { cells: { [table.nameColumnId]: "after the steps" } },
      })
    ).data.row;
    expect(
      await env[away]!.prepare(`SELECT count(*) AS n FROM rows WHERE id = ?1`).bind(row._id).first<number>("n"),
    ).toBe(1);
    expect(
      await env[home]!.prepare(`SELECT count(*) AS n FROM rows WHERE id = ?1`).bind(row._id).first<number>("n"),
    ).toBe(0);
    expect((await allRows(owner.token, table.tableId)).length).toBe(31);

    // The old copy goes in calls of at most ten D1 calls each, repeated until done.
    const drops: { rows: number; done: boolean }[] = [];
    while (!drops.at(-1)?.done)
      drops.push(
        (await ok("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: home, maxCalls: 10 } }))
          .data,
      );
    expect(drops.length).toBeGreaterThan(1);
    expect(drops.slice(0, -1).every((d) => !d.done)).toBe(true);
    // Recorded once, by the call that finished it, in the database that serves the organization.
    expect(await shardEntries("admin.shard_copy_dropped")).toEqual([
      expect.objectContaining({
        actor: { type: "system" },
        clientAddress: expect.any(String),
        changes: { logicalShard: { before: logical, after: logical }, oldCopy: { before: home, after: null } },
      }),
    ]);
    expect(drops.reduce((a, d) => a + d.rows, 0)).toBeGreaterThanOrEqual(30);
    for (const [name, report] of Object.entries(await digests(env[home]!, logical))) expect(report.rows, name).toBe(0);
  });

  it("refuses a cursor it did not issue with 400, stops a move through the abort route, and refuses that move's cursor with 409", async () => {
    for (const cursor of [
      "not a cursor!",
      "e30",
      textToBase64Url(JSON.stringify({ phase: "copy" })),
      "x".repeat(5000),
    ]) {
      const res = await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: home, cursor } });
      expect(res.status, cursor.slice(0, 40)).toBe(400);
    }
    expect(
      (await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: home, maxCalls: 5 } }))
        .status,
    ).toBe(400);
    expect(
      (await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: home, pageRows: 0 } }))
        .status,
    ).toBe(400);
    // A well-formed cursor whose move never started (the source is active): 409, and nothing changes.
    const first = await ok("POST", "/admin/shards/move", {
      token: ADMIN_TOKEN,
      body: { logical, to: home, maxCalls: 10, pageRows: 4 },
    });
    expect(first.data.done).toBe(false);
    // The shard is read-only while the move is under way; stopping it (the command's --abort) makes it writable again.
    const write = () =>
      call("POST", `/table/${table.tableId}/row`, {
        token: owner.token,
        body: { cells: { [table.nameColumnId]: "around an abort" } },
      });
    expect((await write()).status).toBe(503);
    expect((await call("POST", "/admin/shards/abort", { token: owner.token, body: { logical } })).status).toBe(401);
    // It finds the move's target from the fences and deletes what the move had copied there (here, nothing yet).
    expect((await ok("POST", "/admin/shards/abort", { token: ADMIN_TOKEN, body: { logical } })).data).toEqual({
      logical,
      from: away,
      to: home,
      stopped: true,
      rows: 0,
      done: true,
    });
    expect((await write()).status).toBe(200);
    expect(await shardEntries("admin.shard_move_aborted")).toEqual([
      expect.objectContaining({
        actor: { type: "system" },
        clientAddress: expect.any(String),
        changes: { logicalShard: { before: logical, after: logical }, moveTarget: { before: home, after: null } },
      }),
    ]);
    expect((await call("POST", "/admin/shards/abort", { token: ADMIN_TOKEN, body: { logical } })).status).toBe(409);
    const stale = await call("POST", "/admin/shards/move", {
      token: ADMIN_TOKEN,
      body: { logical, to: home, cursor: first.data.cursor },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toMatch(/no longer under way/);
    expect(await readFence(env[away]!, logical)).toEqual({ state: "active", movedTo: null });
  });

  it("stops on a page that differs: 409 naming the table, the source active again, the target's copy fenced off until the abort route deletes it", async () => {
    const before = await digests(env[away]!, logical);
    // The target changes what it is given: a project copied into it gets another name.
    await env[home]!.prepare(
      `CREATE TRIGGER shard_move_steps_corrupt AFTER INSERT ON projects WHEN substr(new.id, 27, 2) = '${shardSuffix(logical)}'
       BEGIN UPDATE projects SET name = name || ' (changed)' WHERE id = new.id; END`,
    ).run();
    let last: { status: number; body: any };
    try {
      ({ last } = await moveInSteps({ logical, to: home, maxCalls: 10, pageRows: 4 }));
    } finally {
      await env[home]!.prepare(`DROP TRIGGER shard_move_steps_corrupt`).run();
    }
    expect(last.status).toBe(409);
    expect(last.body.message).toMatch(/differs .* in projects/);
    expect(last.body.message).toMatch(/POST \/admin\/shards\/abort/);
    expect(await readFence(env[away]!, logical)).toEqual({ state: "active", movedTo: null });
    expect(await digests(env[away]!, logical)).toEqual(before);
    expect(servingBindingOf(logical)).toBe(away);
    // Writes go on where the shard is.
    await ok("POST", `/table/${table.tableId}/row`, {
      token: owner.token,
      body: { cells: { [table.nameColumnId]: "after the refusal" } },
    });

    // What was copied stays in the target, fenced off: no listing across the databases counts it.
    expect(await readFence(env[home]!, logical)).toEqual({ state: "moved", movedTo: away });
    expect(Object.values(await digests(env[home]!, logical)).some((r) => r.rows > 0)).toBe(true);
    const orgs = (await ok("GET", "/organization/all", { token: owner.token })).data as { _id: string }[];
    expect(orgs.filter((o) => o._id === owner.organizationId)).toHaveLength(1);

    // The clean-up the command makes next: the abort route, naming the target, until done.
    const aborts: any[] = [];
    while (!aborts.at(-1)?.done) {
      expect(aborts.length).toBeLessThan(100);
      aborts.push(
        (await ok("POST", "/admin/shards/abort", { token: ADMIN_TOKEN, body: { logical, to: home, maxCalls: 10 } }))
          .data,
      );
    }
    expect(aborts[0]).toMatchObject({ logical, from: away, to: home, stopped: false });
    // One entry more for this abort, however many calls it took (the one before was the previous test's).
    expect((await shardEntries("admin.shard_move_aborted")).map((e) => e.changes.moveTarget)).toEqual([
      { before: home, after: null },
      { before: home, after: null },
    ]);
    expect(aborts.reduce((a, d) => a + d.rows, 0)).toBeGreaterThan(0);
    for (const [name, report] of Object.entries(await digests(env[home]!, logical))) expect(report.rows, name).toBe(0);
    expect(await readFence(env[home]!, logical)).toEqual({ state: "moved", movedTo: away });
    // Nothing left to stop or delete: 409.
    expect((await call("POST", "/admin/shards/abort", { token: ADMIN_TOKEN, body: { logical } })).status).toBe(409);
  });

  it("re-runs safely after a move interrupted between steps, and keeps each step within its budget of D1 calls", async () => {
    const before = await digests(env[away]!, logical);
    // A move that stopped between two steps, part of the copy made: the command was interrupted and its cursor lost.
    let interrupted: Awaited<ReturnType<typeof moveShardStep>> | undefined;
    for (
      let i = 0;
      i < 200 &&
      !(
        interrupted &&
        !interrupted.done &&
        interrupted.progress.phase === "copy" &&
        interrupted.progress.rowsCopied > 8
      );
      i++
    ) {
      interrupted = await moveShardStep(
        env,
        {
          logical,
          to: home,
          cursor: interrupted && !interrupted.done ? interrupted.cursor : undefined,
          maxCalls: 12,
          pageRows: 4,
        },
        { now: Date.now() },
      );
    }
    expect(interrupted).toMatchObject({ done: false, progress: { phase: "copy" } });
    expect(await readFence(env[away]!, logical)).toEqual({ state: "read-only", movedTo: null });
    const partial = await digests(env[home]!, logical);
    expect(Object.values(partial).some((r) => r.rows > 0)).toBe(true);
    expect(partial).not.toEqual(before);

    // The command run again, from the start (no cursor): the target's partial copy is deleted first, and the move finishes.
    const counter = newD1Record();
    // The service as the route runs it, with the two shard databases' calls counted (the directory's are a placement
    // read per step, and the switch's two).
    const counted = {
      ...env,
      [home]: recordingD1(env[home]!, counter),
      [away]: recordingD1(env[away]!, counter),
    } as typeof env;
    const perStep: number[] = [];
    let cursor: string | undefined;
    for (let i = 0; ; i++) {
      expect(i).toBeLessThan(2000);
      counter.calls = 0;
      const step = await moveShardStep(
        counted,
        { logical, to: home, cursor, maxCalls: 12, pageRows: 4 },
        { now: Date.now() },
      );
      perStep.push(counter.calls);
      if (step.done) break;
      cursor = step.cursor;
    }
    expect(perStep.length).toBeGreaterThan(10);
    expect(Math.max(...perStep)).toBeLessThanOrEqual(12);
    expect(Math.min(...perStep)).toBeGreaterThan(0);
    expect(await digests(env[home]!, logical)).toEqual(before);
    expect(servingBindingOf(logical)).toBe(home);
  });

  it("cleans up after a differing page in steps within the budget, the source writable at once, and a new move then succeeds", async () => {
    // The shard is home again (the test before); its old copy in away is left for the move below to clean first.
    expect(servingBindingOf(logical)).toBe(home);
    const rowsBefore = (await allRows(owner.token, table.tableId)).length;
    const counter = newD1Record();
    const counted = {
      ...env,
      [home]: recordingD1(env[home]!, counter),
      [away]: recordingD1(env[away]!, counter),
    } as typeof env;
    const budget = 12;
    const perCall: number[] = [];
    /** One call of the service, its shard databases' D1 calls counted. */
    const counting = async <T>(f: () => Promise<T>): Promise<T> => {
      counter.calls = 0;
      try {
        return await f();
      } finally {
        perCall.push(counter.calls);
      }
    };

    // The copy in away differs: a row copied into it gets another text.
    await env[away]!.prepare(
      `CREATE TRIGGER shard_move_steps_corrupt_rows AFTER INSERT ON cells WHEN substr(new.id, 27, 2) = '${shardSuffix(logical)}'
       BEGIN UPDATE cells SET data = '"changed"' WHERE id = new.id; END`,
    ).run();
    let refusal: unknown;
    try {
      let cursor: string | undefined;
      for (let i = 0; i < 2000 && !refusal; i++) {
        const step = await counting(() =>
          moveShardStep(counted, { logical, to: away, cursor, maxCalls: budget, pageRows: 4 }, { now: Date.now() }),
        ).catch((e) => {
          refusal = e;
          return null;
        });
        if (step?.done) throw new Error("the move should not have finished");
        if (step) cursor = step.cursor;
      }
    } finally {
      await env[away]!.prepare(`DROP TRIGGER shard_move_steps_corrupt_rows`).run();
    }
    expect(refusal).toMatchObject({ code: "ConflictError", message: expect.stringMatching(/differs .* in cells/) });
    // Every step, the refused one too, within its budget: the copy in away was not deleted in one go.
    expect(Math.max(...perCall)).toBeLessThanOrEqual(budget);

    // The source is writable straight away; away's copy is fenced off, so nothing serves or writes it.
    await ok("POST", `/table/${table.tableId}/row`, {
      token: owner.token,
      body: { cells: { [table.nameColumnId]: "right after the mismatch" } },
    });
    expect((await allRows(owner.token, table.tableId)).length).toBe(rowsBefore + 1);
    expect(await readFence(env[home]!, logical)).toEqual({ state: "active", movedTo: null });
    expect(await readFence(env[away]!, logical)).toEqual({ state: "moved", movedTo: home });
    const digestsBefore = digests(env[away]!, logical);
    const leftover = Object.values(await digestsBefore).reduce((a, r) => a + r.rows, 0);
    expect(leftover).toBeGreaterThan(budget * 4);

    // The clean-up, as `npm run shard:move -- <shard> --abort` makes it: the first call finds the copy, the rest name it.
    perCall.length = 0;
    const answers: any[] = [];
    while (!answers.at(-1)?.done) {
      expect(answers.length).toBeLessThan(500);
      const to = answers.at(-1)?.to;
      answers.push(await counting(() => abortShardMove(counted, { logical, ...(to && { to }), maxCalls: budget })));
    }
    expect(answers[0]).toMatchObject({ logical, from: home, to: away, stopped: false });
    expect(answers.length).toBeGreaterThan(1);
    expect(Math.max(...perCall)).toBeLessThanOrEqual(budget);
    // The search entries go with their documents and rows (their delete triggers), so the clean-up counts the rest.
    const leftoverSearch = (await digestsBefore).search_entries!.rows;
    expect(answers.reduce((a, d) => a + d.rows, 0)).toBe(leftover - leftoverSearch);
    for (const [name, report] of Object.entries(await digests(env[away]!, logical))) expect(report.rows, name).toBe(0);

    // A new move then goes through, and the service reads the shard from its new database.
    const before = await digests(env[home]!, logical);
    const { last } = await moveInSteps({ logical, to: away, maxCalls: budget, pageRows: 4 });
    expect(last.status).toBe(200);
    expectMovedCopy(await digests(env[away]!, logical), before);
    expect(servingBindingOf(logical)).toBe(away);
    expect((await allRows(owner.token, table.tableId)).length).toBe(rowsBefore + 1);
  });

  it("stops a move under way and deletes its partial copy in calls within the budget, even one interrupted inside its switch, and leaves a finished move's old copy alone", async () => {
    // The shard is in away now (the test before), its old copy still in home, fenced `moved` → away as this move's target
    // will be: a move to a third database, interrupted inside its copy.
    expect(servingBindingOf(logical)).toBe(away);
    const bindings = shardBindings();
    const third = bindings[(bindings.indexOf(home) + 1) % bindings.length]!;
    expect(third).not.toBe(away);
    const oldCopy = await digests(env[home]!, logical);
    expect(oldCopy.rows!.rows).toBeGreaterThan(8);
    const rowsBefore = (await allRows(owner.token, table.tableId)).length;
    let step: Awaited<ReturnType<typeof moveShardStep>> | undefined;
    for (
      let i = 0;
      i < 200 && !(step && !step.done && step.progress.phase === "copy" && step.progress.rowsCopied > 20);
      i++
    ) {
      step = await moveShardStep(
        env,
        { logical, to: third, cursor: step && !step.done ? step.cursor : undefined, maxCalls: 12, pageRows: 4 },
        { now: Date.now() },
      );
    }
    expect(step).toMatchObject({ done: false, progress: { phase: "copy" } });
    // As a move stopped between the two writes of its switch leaves it: the target's fence active, the source read-only.
    await env[third]!.batch([setFenceStatement(env[third]!, logical, "active")]);

    const counter = newD1Record();
    // Every shard database's calls counted: without `to`, the first call reads the fence of each.
    const counted = {
      ...env,
      ...Object.fromEntries(bindings.map((b) => [b, recordingD1(env[b]!, counter)])),
    } as typeof env;
    const answers: any[] = [];
    const perCall: number[] = [];
    while (!answers.at(-1)?.done) {
      expect(answers.length).toBeLessThan(500);
      counter.calls = 0;
      const to = answers.at(-1)?.to;
      answers.push(await abortShardMove(counted, { logical, ...(to && { to }), maxCalls: 10 }));
      perCall.push(counter.calls);
      if (answers.length === 1) {
        // Stopped by the first call: writable again where it is, and listed once (the target's copy is fenced off).
        expect(answers[0]).toMatchObject({ logical, from: away, to: third, stopped: true });
        expect(await readFence(env[away]!, logical)).toEqual({ state: "active", movedTo: null });
        expect(await readFence(env[third]!, logical)).toEqual({ state: "moved", movedTo: away });
        const orgs = (await ok("GET", "/organization/all", { token: owner.token })).data as { _id: string }[];
        expect(orgs.filter((o) => o._id === owner.organizationId)).toHaveLength(1);
        await ok("POST", `/table/${table.tableId}/row`, {
          token: owner.token,
          body: { cells: { [table.nameColumnId]: "after the stop" } },
        });
      }
    }
    expect(answers.length).toBeGreaterThan(1);
    expect(answers.slice(1).every((a) => a.stopped === false && a.to === third)).toBe(true);
    expect(Math.max(...perCall)).toBeLessThanOrEqual(10);
    for (const [name, report] of Object.entries(await digests(env[third]!, logical))) expect(report.rows, name).toBe(0);
    // The older copy in home, fenced the same way but before this move began, is the drop's to delete, not the abort's.
    expect(await digests(env[home]!, logical)).toEqual(oldCopy);
    expect((await allRows(owner.token, table.tableId)).length).toBe(rowsBefore + 1);
    expect(servingBindingOf(logical)).toBe(away);
  });
});
