// Bulk update throughput: PATCH /table/{id}/rows (1,000 rows × 3 cells per call) through the real API, beside its
// floor: the same cell updates in one D1 batch with the same SQL (src/services/tables/bulk/statements.ts), run by a
// bare Worker (scripts/bench/floor-worker.mjs) under its own wrangler dev on a copy of the API's seeded table, with
// the token's directory read beside it, so both sides pay HTTP, the runtime and D1's local transport. The calls
// alternate between the two. The same batch from Node straight into a fresh database is printed too, for reference.
// Target (issue 36): the API within 1.5× the floor.
//   npm run bench -- bulk        (BENCH_BULK_CALLS overrides the number of measured calls, default 8)
import { monotonicFactory } from "ulidx";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshState, idsBeside, median, openD1, printTable, seedRawTable, seedUser, startApi } from "./lib.mjs";
import { startFloor, time } from "./lib.mjs";

const ROWS = 1000;
const TYPES = ["identifier", "text", "number", "checkbox", "date"];

function setting(name, fallback) {
  const v = Number(process.env[`BENCH_BULK_${name.toUpperCase()}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** Row i's five values as created; `updated(i, k)` the three it gets in call k (text, number, checkbox). */
const created = (i) => [`Row ${i}`, `text ${i}`, i, false, 1_700_000_000_000 + i];
const updated = (i, k) => [`text ${i} after call ${k}`, i * k + 0.5, k % 2 === 0];

// Mirrors src/services/tables/rows.ts (the raw table's 1,000 rows) and src/services/tables/bulk/statements.ts.
const INSERT_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, '', j.key + 1, 0, ?5, ?5 FROM json_each(?6) j`;
const INSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3 FROM json_each(?4) j`;
const UPSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3,
    CASE WHEN j.value ->> 4 IS NULL THEN NULL ELSE j.value -> 4 END, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1 AND r.table_id = ?1 AND r.is_deleted = 0)
  ON CONFLICT (row_id, column_id) DO UPDATE SET data = excluded.data, is_identifier = excluded.is_identifier,
    is_deleted = 0, updated_at = excluded.updated_at`;
const TOUCH_ROWS = `UPDATE rows SET updated_at = ?2 WHERE table_id = ?1 AND is_deleted = 0 AND id IN (SELECT value FROM json_each(?3))`;

async function seedRaw(db, ulid) {
  const columns = TYPES.map(() => ulid());
  const s = await seedRawTable(db, ulid, (ids, t) =>
    columns.map((id, i) =>
      db
        .prepare(
          "INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(
          id,
          ids.table,
          ids.project,
          ids.ws,
          `c${i}`,
          `c${i}`,
          i === 0 ? 1 : 0,
          JSON.stringify({ type: TYPES[i] }),
          t,
          t,
        ),
    ),
  );
  const t = Date.now();
  const rowIds = Array.from({ length: ROWS }, () => ulid());
  const cells = rowIds.flatMap((rowId, i) => created(i).map((v, c) => [ulid(), rowId, columns[c], c === 0 ? 1 : 0, v]));
  await db.batch([
    db.prepare(INSERT_ROWS).bind(s.table, s.project, s.ws, s.user, t, JSON.stringify(rowIds)),
    db.prepare(INSERT_CELLS).bind(s.table, s.ws, t, JSON.stringify(cells)),
  ]);
  return { ...s, columns, rowIds };
}

/** One call's statements: the rows' updatedAt and their 3,000 cell values, as [sql, params]. */
function updateStatements(ulid, s, k) {
  const t = Date.now();
  const cells = s.rowIds.flatMap((rowId, i) => updated(i, k).map((v, c) => [ulid(), rowId, s.columns[c + 1], 0, v]));
  return [
    [TOUCH_ROWS, [s.table, t, JSON.stringify(s.rowIds)]],
    [UPSERT_CELLS, [s.table, s.ws, t, JSON.stringify(cells)]],
  ];
}

/** The Node side of one call: the same batch straight into the database files. */
const rawUpdate = (db, ulid, s, k) => db.batch(updateStatements(ulid, s, k).map(([q, p]) => db.prepare(q).bind(...p)));

/** The floor Worker's side of one call: the same batch, with the token's read beside it. */
async function floorUpdate(floor, token, ulid, s, k) {
  const statements = updateStatements(ulid, s, k).map(([q, params]) => ({ sql: q, params }));
  const res = await floor.call("/floor/sql", { token, body: { shardOf: s.table, statements } });
  if (res.data.length !== 2) throw new Error(`floor batch failed: ${JSON.stringify(res).slice(0, 300)}`);
}

/** A fresh local state's shard database holding logical shard 0, with ids issued on that shard. */
async function rawShard(ulid) {
  const dir = freshState();
  const opened = await openD1(dir);
  const anchor = `${ulid()}00`;
  return {
    db: opened.shard(anchor),
    ids: idsBeside(ulid, anchor),
    async dispose() {
      await opened.dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A table of 1,000 rows × 5 columns through the API, and the PATCH body of call k. */
async function seedApi(api) {
  const u = await seedUser(api);
  const table = await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Bulk" } });
  const tableId = table.data._id;
  const colIds = [table.data.columns[0]._id];
  for (const type of TYPES.slice(1))
    colIds.push(
      (await api.call("POST", `/table/${tableId}/column`, { token: u.token, body: { name: type, data: { type } } }))
        .data._id,
    );
  const seeded = await api.call("POST", `/table/${tableId}/rows`, {
    token: u.token,
    body: {
      rows: Array.from({ length: ROWS }, (_, i) => ({
        cells: Object.fromEntries(created(i).map((v, c) => [colIds[c], v])),
      })),
    },
  });
  const rowIds = seeded.data.rows.map((r) => r._id);
  const body = (k) => ({
    rows: rowIds.map((_id, i) => ({ _id, cells: Object.fromEntries(updated(i, k).map((v, c) => [colIds[c + 1], v])) })),
  });
  // The floor's view of the same table: its ids, and new cell ids issued beside it.
  const same = { table: tableId, ws: u.workspaceId, columns: colIds, rowIds };
  return { u, tableId, body, same };
}

/** `calls` measured rounds after one warm-up each: API, floor Worker and Node batch in turn, so drift hits all alike. */
async function rounds(calls, sides) {
  const ms = Object.fromEntries(Object.keys(sides).map((k) => [k, []]));
  for (let k = 0; k <= calls; k++)
    for (const [name, run] of Object.entries(sides)) {
      const t = await time(() => run(k));
      if (k > 0) ms[name].push(t.ms);
    }
  return ms;
}

export default async function () {
  const calls = setting("calls", 8);
  const ulid = monotonicFactory();
  const dir = freshState();
  const floorDir = mkdtempSync(path.join(os.tmpdir(), "cws-floor-"));
  let api = await startApi({ dir });
  let floor = null;
  const raw = await rawShard(ulid);
  try {
    const { u, tableId, body, same } = await seedApi(api);
    // The floor writes into a copy of the same seeded state (two wrangler dev on one state would contend).
    await api.stop();
    cpSync(dir, floorDir, { recursive: true });
    api = await startApi({ dir });
    floor = await startFloor(floorDir);
    const s = await seedRaw(raw.db, raw.ids);
    const floorIds = idsBeside(ulid, tableId);
    const ms = await rounds(calls, {
      api: async (k) => {
        const res = await api.call("PATCH", `/table/${tableId}/rows`, { token: u.token, body: body(k) });
        if (!Array.isArray(res.data) || res.data.length !== ROWS)
          throw new Error(`PATCH failed: ${JSON.stringify(res)}`);
      },
      floor: (k) => floorUpdate(floor, u.token, floorIds, same, k),
      node: (k) => rawUpdate(raw.db, raw.ids, s, k),
    });
    report(calls, ms);
  } finally {
    await Promise.all([raw.dispose(), api.stop(), floor?.stop()]);
    rmSync(dir, { recursive: true, force: true });
    rmSync(floorDir, { recursive: true, force: true });
  }
}

function report(calls, ms) {
  const m = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, median(xs)]));
  const row = (side, v) => ({ side, msPerCall: v.toFixed(1), cellsPerSec: Math.round((3 * ROWS * 1000) / v) });
  printTable(`Bulk update: ${calls} calls × ${ROWS} rows × 3 cells (median per call)`, [
    row("API PATCH /table/{id}/rows", m.api),
    row("floor: bare Worker, same D1 batch + token read", m.floor),
    row("Node straight into D1 files (same batch)", m.node),
  ]);
  // On a loaded machine the medians carry other processes' noise; the fastest call of each side shows the cost floor.
  const best = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, Math.min(...xs)]));
  const all = (xs) => `[${xs.map((x) => x.toFixed(0)).join(", ")}]`;
  console.log(
    `ratio API / floor Worker: median ${(m.api / m.floor).toFixed(2)}×, fastest ${(best.api / best.floor).toFixed(2)}× (target ≤ 1.5×); ` +
      `API / Node batch: median ${(m.api / m.node).toFixed(2)}×\n` +
      `all calls ms: API ${all(ms.api)} floor ${all(ms.floor)} node ${all(ms.node)}`,
  );
}
