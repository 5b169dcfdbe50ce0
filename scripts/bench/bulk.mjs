// Bulk update throughput: PATCH /table/{id}/rows (1,000 rows × 3 cells per call) through the real API, beside raw D1
// writing the same cell updates in one batch with the same SQL (src/services/tables/bulk/statements.ts) on the same
// local engine, in the same run. Target (issue 36): the API within 1.5× the raw batch.
//   npm run bench -- bulk        (BENCH_BULK_CALLS overrides the number of measured calls, default 8)
import { monotonicFactory } from "ulidx";
import { rmSync } from "node:fs";
import { freshState, idsBeside, median, openD1, printTable, seedRawTable, seedUser, startApi, time } from "./lib.mjs";

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

/** The raw side of one call: the rows' updatedAt and their 3,000 cell values in one batch. */
async function rawUpdate(db, ulid, s, k) {
  const t = Date.now();
  const cells = s.rowIds.flatMap((rowId, i) => updated(i, k).map((v, c) => [ulid(), rowId, s.columns[c + 1], 0, v]));
  await db.batch([
    db.prepare(TOUCH_ROWS).bind(s.table, t, JSON.stringify(s.rowIds)),
    db.prepare(UPSERT_CELLS).bind(s.table, s.ws, t, JSON.stringify(cells)),
  ]);
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

export default async function () {
  const calls = setting("calls", 8);
  const ulid = monotonicFactory();
  const api = await startApi();
  const raw = await rawShard(ulid);
  try {
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
      rows: rowIds.map((_id, i) => ({
        _id,
        cells: Object.fromEntries(updated(i, k).map((v, c) => [colIds[c + 1], v])),
      })),
    });
    const s = await seedRaw(raw.db, raw.ids);

    // A warm-up call on each side (not measured), then the two sides alternate so drift hits both alike.
    const patch = async (k) => {
      const res = await api.call("PATCH", `/table/${tableId}/rows`, { token: u.token, body: body(k) });
      if (!Array.isArray(res.data) || res.data.length !== ROWS) throw new Error(`PATCH failed: ${JSON.stringify(res)}`);
    };
    await patch(0);
    await rawUpdate(raw.db, raw.ids, s, 0);
    const apiMs = [];
    const rawMs = [];
    for (let k = 1; k <= calls; k++) {
      apiMs.push((await time(() => patch(k))).ms);
      rawMs.push((await time(() => rawUpdate(raw.db, raw.ids, s, k))).ms);
    }
    const m = { api: median(apiMs), raw: median(rawMs) };
    printTable(`Bulk update: ${calls} calls × ${ROWS} rows × 3 cells (median per call)`, [
      {
        side: "API PATCH /table/{id}/rows",
        msPerCall: m.api.toFixed(1),
        cellsPerSec: Math.round((3 * ROWS * 1000) / m.api),
      },
      {
        side: "raw D1 batch (same SQL)",
        msPerCall: m.raw.toFixed(1),
        cellsPerSec: Math.round((3 * ROWS * 1000) / m.raw),
      },
    ]);
    // On a loaded machine the medians carry other processes' noise; the fastest call of each side shows the cost floor.
    const best = { api: Math.min(...apiMs), raw: Math.min(...rawMs) };
    console.log(
      `ratio (API time / raw time): median ${(m.api / m.raw).toFixed(2)}×, fastest ${(best.api / best.raw).toFixed(2)}× (target ≤ 1.5×)` +
        `  |  all calls ms: API [${apiMs.map((x) => x.toFixed(0)).join(", ")}] raw [${rawMs.map((x) => x.toFixed(0)).join(", ")}]`,
    );
  } finally {
    await raw.dispose();
    api.stop();
  }
}
