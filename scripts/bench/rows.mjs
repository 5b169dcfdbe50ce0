// Rows throughput: bulk insert (POST /table/{id}/rows, 1000 rows per call, 5 columns) and listing
// (GET /table/{id}/rows, limit 1000) through the real API, beside raw D1 doing the same writes and reads with the
// same SQL shape (src/services/tables/rows.ts) on the same local engine, in the same run.
//   npm run bench -- rows        (BENCH_ROWS_CALLS, BENCH_ROWS_PAGES, BENCH_ROWS_PASSES override the defaults)
import { monotonicFactory } from "ulidx";
import { median, printTable, rawD1, seedRawTable, seedUser, startApi, time } from "./lib.mjs";

const ROWS_PER_CALL = 1000;

function setting(name, fallback) {
  const v = Number(process.env[`BENCH_ROWS_${name.toUpperCase()}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** The cell values of row i: identifier, text, number, checkbox, date. */
function rowValues(i) {
  return [
    `Row ${i}`,
    `Some text for row ${i} that is a little longer than a word`,
    i * 1.25,
    i % 2 === 0,
    1_700_000_000_000 + i * 60_000,
  ];
}

// Mirrors INSERT_ROWS / INSERT_CELLS in src/services/tables/rows.ts.
const INSERT_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, '', (SELECT COALESCE(MAX(seq), 0) FROM rows WHERE table_id = ?1) + j.key + 1, 0, ?5, ?5
  FROM json_each(?6) j`;
const INSERT_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3
  FROM json_each(?4) j`;
// Mirrors listRows: one page of live rows in (seq, id) order with the row's cells as one JSON object.
const PAGE = `SELECT r.*, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id) AS cells
  FROM rows r WHERE r.table_id = ?1 AND r.is_deleted = 0 AND (r.seq, r.id) > (?2, ?3) ORDER BY r.seq, r.id LIMIT ?4`;

// Mirrors the listing's page with its comment counts (src/services/tables/rowReads.ts commentCounts).
const PAGE_WITH_COUNTS = `SELECT r.*, (SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id) AS cells,
  (SELECT json_array(COUNT(*), COALESCE(SUM(k.status = 'open'), 0)) FROM comments k WHERE k.row_id = r.id AND k.is_deleted = 0) AS comments
  FROM rows r WHERE r.table_id = ?1 AND r.is_deleted = 0 AND (r.seq, r.id) > (?2, ?3) ORDER BY r.seq, r.id LIMIT ?4`;
const COUNTED_PAGE = 100;

/** Two comments (one resolved) on every other row of the first page, as the comments service writes them. */
async function seedComments(db, ulid, s) {
  const { results } = await db.prepare(PAGE).bind(s.table, -1, "", COUNTED_PAGE).all();
  const t = Date.now();
  const insert = `INSERT INTO comments (id, workspace_id, project_id, table_id, row_id, thread_id, author_id, body, mentions,
    status, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?1, ?6, 'A remark', '[]', ?7, ?8, ?8)`;
  await db.batch(
    results
      .filter((_, i) => i % 2 === 0)
      .flatMap((r) =>
        ["open", "resolved"].map((status) =>
          db.prepare(insert).bind(ulid(), s.ws, s.project, s.table, r.id, s.user, status, t),
        ),
      ),
  );
}

/** Median ms of the first page of COUNTED_PAGE rows, with and without the counts, alternated `n` times. */
async function countedListing(db, tableId, n) {
  const page = (sql) => db.prepare(sql).bind(tableId, -1, "", COUNTED_PAGE).all();
  await page(PAGE);
  await page(PAGE_WITH_COUNTS);
  const without = [];
  const withCounts = [];
  for (let i = 0; i < n; i++) {
    without.push((await time(() => page(PAGE))).ms);
    withCounts.push((await time(() => page(PAGE_WITH_COUNTS))).ms);
  }
  return { without: median(without), withCounts: median(withCounts) };
}

async function seedRaw(db, ulid) {
  const columns = Array.from({ length: 5 }, () => ulid());
  const ids = await seedRawTable(db, ulid, (ids, t) =>
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
          JSON.stringify({ type: ["identifier", "text", "number", "checkbox", "date"][i] }),
          t,
          t,
        ),
    ),
  );
  return { ...ids, columns };
}

async function rawBulkInsert(db, ulid, s, offset) {
  const t = Date.now();
  const rowIds = Array.from({ length: ROWS_PER_CALL }, () => ulid());
  const cells = [];
  rowIds.forEach((rowId, i) =>
    rowValues(offset + i).forEach((v, c) =>
      cells.push(JSON.stringify([ulid(), rowId, s.columns[c], c === 0 ? 1 : 0, v])),
    ),
  );
  await db.batch([
    db.prepare(INSERT_ROWS).bind(s.table, s.project, s.ws, s.user, t, JSON.stringify(rowIds)),
    db.prepare(INSERT_CELLS).bind(s.table, s.ws, t, `[${cells.join(",")}]`),
  ]);
}

async function rawPageThrough(db, tableId, pages, limit) {
  let after = { seq: -1, id: "" };
  let n = 0;
  for (let p = 0; p < pages; p++) {
    const { results } = await db.prepare(PAGE).bind(tableId, after.seq, after.id, limit).all();
    for (const r of results) JSON.parse(r.cells ?? "{}");
    n += results.length;
    const last = results[results.length - 1];
    if (!last) break;
    after = { seq: last.seq, id: last.id };
  }
  return n;
}

async function apiPageThrough(api, token, tableId, pages, limit) {
  let cursor;
  let n = 0;
  for (let p = 0; p < pages; p++) {
    const res = await api.call("GET", `/table/${tableId}/rows?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, {
      token,
    });
    n += res.data.length;
    cursor = res.nextCursor;
    if (!cursor) break;
  }
  return n;
}

export default async function () {
  const calls = setting("calls", 8);
  const pages = setting("pages", 5);
  const passes = setting("passes", 3);
  const ulid = monotonicFactory();
  const api = await startApi();
  const raw = await rawD1();
  try {
    // API side: a table with 5 columns (identifier, text, number, checkbox, date).
    const u = await seedUser(api);
    const table = await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Bench" } });
    const tableId = table.data._id;
    const colIds = [table.data.columns[0]._id];
    for (const type of ["text", "number", "checkbox", "date"]) {
      colIds.push(
        (await api.call("POST", `/table/${tableId}/column`, { token: u.token, body: { name: type, data: { type } } }))
          .data._id,
      );
    }
    const body = (offset) => ({
      rows: Array.from({ length: ROWS_PER_CALL }, (_, i) => ({
        cells: Object.fromEntries(rowValues(offset + i).map((v, c) => [colIds[c], v])),
      })),
    });
    const s = await seedRaw(raw.db, ulid);

    // Warm-up call on each side (not measured), then alternate API and raw calls so drift hits both alike.
    await api.call("POST", `/table/${tableId}/rows`, { token: u.token, body: body(0) });
    await rawBulkInsert(raw.db, ulid, s, 0);
    const apiInsert = [];
    const rawInsert = [];
    for (let k = 1; k <= calls; k++) {
      const b = body(k * ROWS_PER_CALL);
      apiInsert.push((await time(() => api.call("POST", `/table/${tableId}/rows`, { token: u.token, body: b }))).ms);
      rawInsert.push((await time(() => rawBulkInsert(raw.db, ulid, s, k * ROWS_PER_CALL))).ms);
    }

    const limit = 1000;
    await apiPageThrough(api, u.token, tableId, 1, limit);
    await rawPageThrough(raw.db, s.table, 1, limit);
    const apiList = [];
    const rawList = [];
    let listedApi = 0;
    let listedRaw = 0;
    for (let p = 0; p < passes; p++) {
      const a = await time(() => apiPageThrough(api, u.token, tableId, pages, limit));
      const r = await time(() => rawPageThrough(raw.db, s.table, pages, limit));
      apiList.push(a.ms);
      rawList.push(r.ms);
      listedApi = a.out;
      listedRaw = r.out;
    }

    const rps = (rowsPerRun, ms) => Math.round((rowsPerRun / ms) * 1000);
    const ins = { api: median(apiInsert), raw: median(rawInsert) };
    const lst = { api: median(apiList), raw: median(rawList) };
    printTable(`Bulk insert: ${calls} calls × ${ROWS_PER_CALL} rows × 5 cells (median per call)`, [
      { side: "API POST /table/{id}/rows", msPerCall: ins.api.toFixed(1), rowsPerSec: rps(ROWS_PER_CALL, ins.api) },
      { side: "raw D1 batch (same SQL)", msPerCall: ins.raw.toFixed(1), rowsPerSec: rps(ROWS_PER_CALL, ins.raw) },
    ]);
    printTable(`Listing: ${listedApi} rows in pages of ${limit}, ${passes} passes (median per pass)`, [
      { side: "API GET /table/{id}/rows", msPerPass: lst.api.toFixed(1), rowsPerSec: rps(listedApi, lst.api) },
      { side: "raw D1 page query (same SQL)", msPerPass: lst.raw.toFixed(1), rowsPerSec: rps(listedRaw, lst.raw) },
    ]);
    await seedComments(raw.db, ulid, s);
    const counted = await countedListing(raw.db, s.table, setting("counted", 40));
    const apiCounted = [];
    for (let i = 0; i < setting("counted", 40); i++)
      apiCounted.push((await time(() => apiPageThrough(api, u.token, tableId, 1, COUNTED_PAGE))).ms);
    printTable(`Listing ${COUNTED_PAGE} rows with comment counts (median of ${setting("counted", 40)})`, [
      { side: "raw D1 page without counts", ms: counted.without.toFixed(2) },
      { side: "raw D1 page with commentCount/openCommentCount", ms: counted.withCounts.toFixed(2) },
      { side: "API GET /table/{id}/rows?limit=100 (counts included)", ms: median(apiCounted).toFixed(2) },
    ]);
    console.log(`comment counts: ${(counted.withCounts / counted.without).toFixed(2)}× the listing without them`);
    console.log(
      `ratios (API time / raw time): insert ${(ins.api / ins.raw).toFixed(2)}×, listing ${(lst.api / lst.raw).toFixed(2)}×` +
        `  |  all insert calls ms: API [${apiInsert.map((x) => x.toFixed(0)).join(", ")}] raw [${rawInsert.map((x) => x.toFixed(0)).join(", ")}]`,
    );
  } finally {
    await raw.dispose();
    api.stop();
  }
}
