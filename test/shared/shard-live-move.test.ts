/**
 * Moving a logical shard while a client keeps reading and writing through the API (docs/scaling.md "Moving a logical
 * shard"): POST /admin/shards/move copies the shard to another database and switches the directory's placement;
 * writes meanwhile answer 503 with Retry-After (the fence's triggers, the shard baseline, migrations/shard/0000), reads go on, and every write
 * the client saw acknowledged is in the new database afterwards. A Worker that has not learned the switch is sent on
 * by the directory's answer beside its token check. The shard is moved back at the end, so the files after this one
 * (which share the databases and the Worker) find it where the map puts it.
 */
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { forgetPlacements, servingBindingOf } from "../../src/tenancy/kernel/placements";
import { readFence } from "../../src/tenancy/kernel/fence";
import { shardCondition } from "../../src/tenancy/kernel/keys";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings, type ShardBinding } from "../../src/tenancy/kernel/map";
import { moveShard } from "../../src/tenancy/operations/moves";
import { addWorkspaceCollaborator, ADMIN_TOKEN, call, ok, registerUser, type RegisteredUser } from "../support/harness";
import { allRows, bulkRows, makeTable, type TestTable } from "../support/tableHarness";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rowsOfShard(db: D1Database, logical: number): Promise<number> {
  const cond = shardCondition("workspace_id", logical);
  return (await db
    .prepare(`SELECT count(*) AS n FROM rows WHERE ${cond.sql}`)
    .bind(...cond.params)
    .first<number>("n"))!;
}

let owner: RegisteredUser;
let reader: RegisteredUser;
let table: TestTable;
let logical: number;
let home: ShardBinding;
let away: ShardBinding;
/** A word only one row of this file holds. */
const marker = `zebrafinch${crypto
  .randomUUID()
  .replace(/[^a-f]/g, "")
  .slice(0, 8)}`;

beforeAll(async () => {
  owner = await registerUser("Live mover");
  reader = await registerUser("Live reader");
  await addWorkspaceCollaborator(owner, owner.workspaceId, reader, "viewer");
  logical = logicalShardOfId(owner.workspaceId)!;
  home = servingBindingOf(logical);
  const bindings = shardBindings();
  away = bindings[(bindings.indexOf(home) + 1) % bindings.length]!;
  const project = (
    await ok("POST", "/project", {
      token: owner.token,
      body: { workspaceId: owner.workspaceId, name: "Moving project" },
    })
  ).data;
  table = await makeTable(owner.token, project._id, "Ledger");
  // Enough rows that the copy takes a while (several pages of every table), so the client's writes meet the fence.
  await ok("POST", `/table/${table.tableId}/row`, {
    token: owner.token,
    body: { cells: { [table.nameColumnId]: `the ${marker} row` } },
  });
  for (let i = 0; i < 3; i++)
    await bulkRows(
      owner.token,
      table.tableId,
      Array.from({ length: 500 }, (_, k) => ({ [table.nameColumnId]: `seed ${i}-${k}` })),
    );
});

afterAll(async () => {
  // Back where the map puts it, and no copy left behind in either database.
  if (!logical || servingBindingOf(logical) === home) return;
  await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: home } });
  await call("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: away } });
});

describe("moving a logical shard under live traffic", () => {
  it("keeps every acknowledged write, refuses writes with 503 and Retry-After while it copies, and never fails a read", async () => {
    const acknowledged: string[] = [];
    const refusals: { status: number; retryAfter: string | null; error: string }[] = [];
    const readStatuses: number[] = [];
    let moving = true;

    // One writer: each row is written until acknowledged (a refused write wrote nothing, so its retry cannot duplicate it).
    const writer = (async () => {
      // Until the move is over, then five more (written on the new database).
      for (let i = 0, after = 0; moving || after < 5; i++) {
        if (!moving) after++;
        const name = `live ${i}`;
        for (;;) {
          const res = await call("POST", `/table/${table.tableId}/row`, {
            token: owner.token,
            body: { cells: { [table.nameColumnId]: name } },
          });
          if (res.status === 200) break;
          refusals.push({ status: res.status, retryAfter: res.headers.get("retry-after"), error: res.body?.error });
          if (res.status !== 503) return;
          await pause(5);
        }
        acknowledged.push(name);
      }
    })();
    // One reader, another user: a single row and the first page of rows, all along.
    const reads = (async () => {
      while (moving) {
        readStatuses.push(
          (await call("GET", `/table/${table.tableId}/rows`, { token: reader.token, query: { limit: 20 } })).status,
        );
        await pause(3);
      }
    })();

    await pause(50);
    // The move runs here rather than through POST /admin/shards/move (the third test calls the routes) only so that
    // the copy can wait, after its first table, until the client has met the fence and read beside it: in the test
    // runtime a request that keeps the isolate busy with D1 calls leaves other requests no turn.
    const readsBefore = readStatuses.length;
    const moved = {
      data: await moveShard(
        env,
        { logical, to: away },
        {
          now: Date.now(),
          onCopied: async () => {
            for (let i = 0; i < 2000 && (refusals.length === 0 || readStatuses.length <= readsBefore + 1); i++)
              await pause(2);
          },
        },
      ),
    };
    moving = false;
    await Promise.all([writer, reads]);

    expect(moved.data).toMatchObject({ logical, from: home, to: away });
    expect(moved.data.rows.rows).toBeGreaterThanOrEqual(1500);
    expect(moved.data.rows.organizations).toBeGreaterThanOrEqual(1);
    // Writes met the fence and were told when to retry; nothing else went wrong; every read was answered.
    expect(refusals.length, "writes during the copy").toBeGreaterThan(0);
    for (const r of refusals)
      expect(r).toEqual({ status: 503, retryAfter: expect.stringMatching(/^[12]$/), error: "ServiceUnavailableError" });
    expect(readStatuses.length).toBeGreaterThan(0);
    expect(new Set(readStatuses)).toEqual(new Set([200]));
    expect(acknowledged.length).toBeGreaterThan(5);

    // The switch: the directory names the new database, the old one's fence says where the shard went.
    expect(servingBindingOf(logical)).toBe(away);
    expect(
      await env.DB.prepare(`SELECT binding FROM shard_placements WHERE logical = ?1`)
        .bind(logical)
        .first<string>("binding"),
    ).toBe(away);
    expect(await readFence(env[home]!, logical)).toEqual({ state: "moved", movedTo: away });
    expect(await readFence(env[away]!, logical)).toEqual({ state: "active", movedTo: null });

    // Every acknowledged write exactly once, read through the API from the new database.
    const names = (await allRows(owner.token, table.tableId)).map((r) => r.cells[table.nameColumnId] as string);
    for (const name of acknowledged)
      expect(
        names.filter((n) => n === name),
        name,
      ).toHaveLength(1);
    expect(names.filter((n) => n.startsWith("live ")).length).toBe(acknowledged.length);
    expect(await rowsOfShard(env[away]!, logical)).toBeGreaterThanOrEqual(1500 + acknowledged.length);
    // The old copy cannot be written by anyone, whatever the code path: the fence's triggers refuse.
    await expect(
      env[home]!.prepare(`UPDATE tables SET name = 'stale' WHERE id = ?1`).bind(table.tableId).run(),
    ).rejects.toThrow(/shard_fence: moved/);
  });

  it("sends a request routed by an older map to the new database, in the same request", async () => {
    // A row that exists only in the new database.
    const row = (
      await ok("POST", `/table/${table.tableId}/row`, {
        token: owner.token,
        body: { cells: { [table.nameColumnId]: "after the switch" } },
      })
    ).data.row;
    expect(
      await env[home]!.prepare(`SELECT count(*) AS n FROM rows WHERE id = ?1`).bind(row._id).first<number>("n"),
    ).toBe(0);
    // As a Worker that has not seen the move: the request goes to the old database first, and the directory's
    // answer beside the token check sends it on.
    forgetPlacements();
    expect(servingBindingOf(logical)).toBe(home);
    const res = await call("GET", `/table/row/${row._id}`, { token: reader.token });
    expect(res.status).toBe(200);
    expect(res.body.data._id).toBe(row._id);
    expect(res.headers.get("x-d1-databases")?.split(",").sort()).toEqual(["DB", away, home].sort());
    expect(servingBindingOf(logical)).toBe(away);
    // A write with a forgotten map is routed once the token is checked, before the handler writes.
    forgetPlacements();
    const written = await call("POST", `/table/${table.tableId}/row`, {
      token: owner.token,
      body: { cells: { [table.nameColumnId]: "written stale" } },
    });
    expect(written.status).toBe(200);
    expect(
      await env[away]!.prepare(`SELECT count(*) AS n FROM rows WHERE id = ?1`)
        .bind(written.body.data.row._id)
        .first<number>("n"),
    ).toBe(1);
  });

  it("drops the old copy only from the database the shard left, and only with the admin token", async () => {
    expect(
      (await call("POST", "/admin/shards/drop", { token: owner.token, body: { logical, from: home } })).status,
    ).toBe(401);
    expect((await call("POST", "/admin/shards/move", { token: owner.token, body: { logical, to: home } })).status).toBe(
      401,
    );
    // The database that serves it has no old copy; moving it where it is is a conflict; an unknown database is a 400.
    expect(
      (await call("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: away } })).status,
    ).toBe(409);
    expect((await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: away } })).status).toBe(
      409,
    );
    expect(
      (await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical, to: "SHARD_99" } })).status,
    ).toBe(400);
    expect(
      (await call("POST", "/admin/shards/move", { token: ADMIN_TOKEN, body: { logical: 480, to: home } })).status,
    ).toBe(400);

    const before = await rowsOfShard(env[home]!, logical);
    expect(before).toBeGreaterThanOrEqual(1500);
    const dropped = await ok("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: home } });
    expect(dropped.data.rows).toBeGreaterThanOrEqual(before);
    expect(await rowsOfShard(env[home]!, logical)).toBe(0);
    // The organization is still whole, from its new database.
    expect((await allRows(reader.token, table.tableId)).length).toBeGreaterThanOrEqual(1500);
    const orgs = (await ok("GET", "/organization/all", { token: owner.token })).data as { _id: string }[];
    expect(orgs.filter((o) => o._id === owner.organizationId)).toHaveLength(1);
  });

  it("lists an organization once while its shard is half copied into another database", async () => {
    // Back home; the copy pauses after the members table: the target then holds the organization and its members (under a
    // "moved" fence) beside the copy that serves, and a listing across every shard database must not show it twice.
    const seenInTarget: number[] = [];
    const listed: number[] = [];
    await moveShard(
      env,
      { logical, to: home },
      {
        now: Date.now(),
        onCopied: async (copied) => {
          if (copied === "organization_members") {
            seenInTarget.push(
              (await env[home]!.prepare(
                `SELECT count(*) AS n FROM organization_members WHERE organization_id = ?1 AND user_id = ?2`,
              )
                .bind(owner.organizationId, owner.id)
                .first<number>("n"))!,
            );
            const orgs = (await ok("GET", "/organization/all", { token: owner.token })).data as { _id: string }[];
            listed.push(orgs.filter((o) => o._id === owner.organizationId).length);
          }
        },
      },
    );
    expect(seenInTarget).toEqual([1]);
    expect(listed).toEqual([1]);
    // The search entries come over last, with the verified copy: a search across every database then finds the row once.
    expect((await ok("GET", "/search", { token: owner.token, query: { q: marker } })).data).toHaveLength(1);
    expect(servingBindingOf(logical)).toBe(home);
    await ok("POST", "/admin/shards/drop", { token: ADMIN_TOKEN, body: { logical, from: away } });
    expect(await rowsOfShard(env[away]!, logical)).toBe(0);
    expect((await allRows(owner.token, table.tableId)).length).toBeGreaterThanOrEqual(1500);
  });
});
