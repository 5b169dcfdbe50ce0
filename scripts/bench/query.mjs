// Row queries at table scale (docs/api-guide.md › Querying rows): a 100,000-row, 12-column table, and p50/p99 of
// six query classes through the real API (POST /table/{id}/query), each beside its floor in the same run: the same
// SQL written by hand, run by a bare Worker (scripts/bench/floor-worker.mjs) under its own wrangler dev on a copy of
// the seeded state with the token's directory read beside it, so both sides pay HTTP, the runtime and D1's local
// transport; requests alternate between the two. The same SQL from Node straight into the files is printed too.
//   npm run bench -- query        (BENCH_QUERY_ROWS, BENCH_QUERY_REPS override 100000 and 30)
import { monotonicFactory } from "ulidx";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { freshState, idsBeside, median, openD1, printTable, seedUser, startApi, startFloor, time } from "./lib.mjs";

const setting = (name, fallback) => {
  const v = Number(process.env[`BENCH_QUERY_${name}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
};
const ITEMS = ["a", "b", "c", "d", "e"].map((id) => ({ id, label: id.toUpperCase(), color: "" }));
const WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta"];

/** Row i's values for the 11 stored columns, then the formula's ({n1} * 2). */
function values(i) {
  const n1 = (i * 7919) % 1000;
  return {
    name: `Row ${i}`,
    t1: `${WORDS[i % 8]} ${WORDS[(i >> 3) % 8]}${i % 100 === 0 ? " zebra" : ""} ${i}`,
    n1,
    n2: ((i * 104729) % 100000) / 100,
    d1: 1_700_000_000_000 + (i % 365) * 86_400_000,
    b1: i % 2 === 0,
    s1: ITEMS[i % 5].id,
    m1: [ITEMS[i % 5].id, ITEMS[(i + 2) % 5].id],
    e1: `user${i}@example.com`,
    u1: `https://example.com/${i}`,
    t2: `cat-${i % 20}`,
    f1: n1 * 2,
  };
}

const TYPES = { t1: "text", n1: "number", n2: "number", d1: "date", b1: "checkbox", s1: "select", m1: "multiSelect" };
Object.assign(TYPES, { e1: "email", u1: "url", t2: "text" });

async function setUp(rowCount) {
  const dir = freshState();
  let api = await startApi({ dir });
  const u = await seedUser(api);
  const table = (await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Q" } }))
    .data;
  const col = { name: table.columns[0]._id };
  for (const [key, type] of Object.entries(TYPES)) {
    const data = type.endsWith("elect") ? { type, selectItems: ITEMS } : { type };
    col[key] = (
      await api.call("POST", `/table/${table._id}/column`, { token: u.token, body: { name: key, data } })
    ).data._id;
  }
  const f = { type: "formula", formula: { text: "{n1} * 2" } };
  col.f1 = (
    await api.call("POST", `/table/${table._id}/column`, { token: u.token, body: { name: "f1", data: f } })
  ).data._id;
  await api.stop();
  // 100,000 rows written straight into the table's shard database with the services' SQL shape (rows by json_each,
  // cells by json_each), ids issued beside the table as the services issue them.
  const { shard, dispose } = await openD1(dir);
  const db = shard(table._id);
  const next = idsBeside(monotonicFactory(), table._id);
  const now = Date.now();
  for (let start = 0; start < rowCount; start += 2000) {
    const rowIds = [];
    const cells = [];
    for (let i = start; i < Math.min(rowCount, start + 2000); i++) {
      const id = next();
      rowIds.push(id);
      for (const [key, v] of Object.entries(values(i))) cells.push([next(), id, col[key], key === "name" ? 1 : 0, v]);
    }
    await db.batch([
      db
        .prepare(
          `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
           SELECT j.value, ?1, ?2, ?3, ?4, '', ?5 + j.key + 1, 0, ?6, ?6 FROM json_each(?7) j`,
        )
        .bind(table._id, u.projectId, u.workspaceId, u.userId, start, now, JSON.stringify(rowIds)),
      db
        .prepare(
          `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
           SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3 FROM json_each(?4) j`,
        )
        .bind(table._id, u.workspaceId, now, JSON.stringify(cells)),
    ]);
  }
  await db.prepare("ANALYZE").run();
  await dispose();
  return { dir, u, tableId: table._id, col };
}

/** The six query classes: the API request, and the floor's hand-written SQL over the same schema. */
function classes(col, tableId) {
  const v = `json_extract(c.data, '$')`;
  // Sorted queries look each match up (`r.id IN`); unsorted ones walk the rows in order (`+r.id IN`), as the
  // service compiles them (src/services/tables/query/filter.ts, inCells).
  const inCells = (columnId, pred, sorted = false) =>
    `${sorted ? "" : "+"}r.id IN (SELECT c.row_id FROM cells c WHERE c.column_id = '${columnId}' AND c.is_deleted = 0 AND ${pred})`;
  // A sort key read from the (column, row, value) index alone, as src/services/tables/query/sqlParts.ts rowValue.
  const key = (columnId) =>
    `(SELECT NULLIF(NULLIF(${v}, ''), '[]') FROM cells c INDEXED BY cells_column_row_value_idx WHERE c.column_id = '${columnId}' AND c.row_id = r.id AND c.is_deleted = 0)`;
  const cellsOf = `(SELECT json_group_object(c.column_id, json(c.data)) FROM cells c WHERE c.row_id = r.id) AS cells`;
  // The page's ids sorted and cut first, then the values of those rows only (as src/services/tables/query/query.ts).
  const page = (where, order, limit = 100) =>
    `SELECT r.*, ${cellsOf}
     FROM rows r WHERE r.id IN (SELECT r.id FROM rows r WHERE r.table_id = '${tableId}' AND r.is_deleted = 0 AND ${where}
       ORDER BY ${order} LIMIT ${limit + 1}) ORDER BY ${order}`;
  // A sorted page: every match with its keys read once (a MATERIALIZED set), sorted and cut, then the page's values.
  // On several keys (a first page), the later keys only for the matches whose first key can make the page.
  const sortedPage = (where, keys, limit = 100) => {
    const order = (k) => [...keys.map(([, dir], i) => `${k(i)} IS NULL, ${k(i)} ${dir}`), "seq, id"].join(", ");
    const matches = `FROM rows r WHERE r.table_id = '${tableId}' AND r.is_deleted = 0 AND ${where}`;
    const ids =
      keys.length === 1
        ? `WITH m AS MATERIALIZED (SELECT r.id AS id, r.seq AS seq, ${key(keys[0][0])} AS k0 ${matches})
           SELECT id FROM m ORDER BY ${order((i) => `k${i}`)} LIMIT ${limit + 1}`
        : `WITH m AS MATERIALIZED (SELECT r.id AS id, r.seq AS seq, ${key(keys[0][0])} AS k0 ${matches}),
           cut AS MATERIALIZED (SELECT k0 FROM m ORDER BY k0 IS NULL, k0 ${keys[0][1]} LIMIT 1 OFFSET ${limit}),
           c AS MATERIALIZED (SELECT m.id AS id, m.seq AS seq, m.k0 AS k0,
               ${keys
                 .slice(1)
                 .map(([c], i) => `${key(c).replace("c.row_id = r.id", "c.row_id = m.id")} AS k${i + 1}`)
                 .join(", ")}
             FROM m WHERE NOT EXISTS (SELECT 1 FROM cut) OR (SELECT k0 FROM cut) IS NULL
               OR m.k0 ${keys[0][1] === "DESC" ? ">=" : "<="} (SELECT k0 FROM cut))
           SELECT id FROM c ORDER BY ${order((i) => `k${i}`)} LIMIT ${limit + 1}`;
    return `SELECT r.*, ${cellsOf} FROM rows r WHERE r.id IN (${ids})
     ORDER BY ${order((i) => key(keys[i][0])).replace("seq, id", "r.seq, r.id")}`;
  };
  const cond = (columnId, op, value) => ({ columnId, op, value });
  return [
    {
      name: "equality filter",
      body: { filter: { and: [cond(col.t2, "eq", "cat-7")] } },
      sql: page(inCells(col.t2, `${v} = 'cat-7'`), "r.seq, r.id"),
    },
    {
      name: "range + sort on another column",
      body: { filter: { and: [cond(col.n1, "between", [100, 149])] }, sort: [{ columnId: col.n2, direction: "desc" }] },
      sql: sortedPage(inCells(col.n1, `typeof(${v}) IN ('integer', 'real') AND ${v} BETWEEN 100 AND 149`, true), [
        [col.n2, "DESC"],
      ]),
    },
    {
      name: "or of three + two sort keys",
      body: {
        filter: { or: [cond(col.t2, "eq", "cat-1"), cond(col.t2, "eq", "cat-2"), cond(col.n1, "gte", 990)] },
        sort: [{ columnId: col.s1 }, { columnId: col.n2, direction: "desc" }],
      },
      sql: sortedPage(
        `(${inCells(col.t2, `${v} = 'cat-1'`, true)} OR ${inCells(col.t2, `${v} = 'cat-2'`, true)} OR ${inCells(col.n1, `typeof(${v}) IN ('integer', 'real') AND ${v} >= 990`, true)})`,
        [
          [col.s1, "ASC"],
          [col.n2, "DESC"],
        ],
      ),
    },
    {
      name: "formula-column filter",
      body: { filter: { and: [cond(col.f1, "eq", 500)] } },
      sql: page(inCells(col.f1, `${v} = 500`), "r.seq, r.id"),
    },
    {
      name: "contains",
      body: { filter: { and: [cond(col.t1, "contains", "zebra")] } },
      sql: page(inCells(col.t1, `${v} LIKE '%zebra%' ESCAPE '\\'`), "r.seq, r.id"),
    },
    {
      name: "page 50 deep by cursor",
      body: { filter: { and: [cond(col.s1, "is", "a")] } },
      deep: 50,
      sql: (after) =>
        page(
          `${inCells(col.s1, `${v} IN (SELECT value FROM json_each('["a"]'))`)} AND (r.seq, r.id) > (${after.seq}, '${after.id}')`,
          "r.seq, r.id",
        ),
    },
  ];
}

const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];

/** The deep class's cursor: `deep - 1` pages through the API, and the position (seq, id) its last row holds. */
async function deepCursor(api, floor, s, c) {
  let cursor;
  let lastId;
  for (let p = 1; p < c.deep; p++) {
    const res = await api.call("POST", `/table/${s.tableId}/query`, {
      token: s.u.token,
      body: { ...c.body, ...(cursor ? { cursor } : {}) },
    });
    if (!res.nextCursor) break;
    cursor = res.nextCursor;
    lastId = res.data[res.data.length - 1]._id;
  }
  const statements = [{ sql: "SELECT seq, id FROM rows WHERE id = ?", params: [lastId] }];
  const [[after]] = (await floor.call("/floor/sql", { token: s.u.token, body: { shardOf: s.tableId, statements } }))
    .data;
  return { cursor, after };
}

/**
 * One class, API and floor Worker in alternation (so machine drift hits both alike), 2 warm-up rounds unmeasured:
 * the API's POST /table/{id}/query beside the floor's hand-written SQL with the token's read.
 */
async function timeSideBySide(api, floor, s, c, reps) {
  const { cursor, after } = c.deep ? await deepCursor(api, floor, s, c) : {};
  const sqlText = c.deep ? c.sql(after) : c.sql;
  const body = { ...c.body, ...(cursor ? { cursor } : {}) };
  const floorBody = { shardOf: s.tableId, statements: [{ sql: sqlText }] };
  const out = { api: [], floor: [], apiCount: 0, floorCount: 0, sqlText };
  for (let i = 0; i < reps + 2; i++) {
    const a = await time(() => api.call("POST", `/table/${s.tableId}/query`, { token: s.u.token, body }));
    const f = await time(() => floor.call("/floor/sql", { token: s.u.token, body: floorBody }));
    if (i < 2) continue;
    out.api.push(a.ms);
    out.floor.push(f.ms);
    out.apiCount = a.out.data.length;
    out.floorCount = Math.min(f.out.data[0].length, 100);
  }
  return out;
}

/** The same SQL from Node straight into the database files (openD1): no HTTP, no Worker, for reference. */
async function timeNode(db, sqlText, reps) {
  const ms = [];
  for (let i = 0; i < reps + 2; i++) {
    const t0 = performance.now();
    const { results } = await db.prepare(sqlText).all();
    for (const r of results) JSON.parse(r.cells ?? "{}");
    if (i >= 2) ms.push(performance.now() - t0);
  }
  return ms;
}

/** The API and the floor Worker side by side on copies of the seeded state, then the direct-Node figure. */
async function measure(s, list, reps) {
  const floorDir = mkdtempSync(path.join(os.tmpdir(), "cws-floor-"));
  cpSync(s.dir, floorDir, { recursive: true });
  const api = await startApi({ dir: s.dir });
  let floor = null;
  const timed = [];
  const fixed = [];
  try {
    floor = await startFloor(floorDir);
    for (const c of list) timed.push(await timeSideBySide(api, floor, s, c, reps));
    // The fixed cost of any request on this machine (HTTP, authentication, one D1 round trip), for reading the ratios.
    for (let i = 0; i < reps + 2; i++) {
      const t = await time(() => api.call("GET", `/table/${s.tableId}`, { token: s.u.token }));
      if (i >= 2) fixed.push(t.ms);
    }
  } finally {
    await Promise.all([api.stop(), floor?.stop()]);
    rmSync(floorDir, { recursive: true, force: true });
  }
  const { shard, dispose } = await openD1(s.dir);
  try {
    for (const t of timed) t.node = await timeNode(shard(s.tableId), t.sqlText, reps);
  } finally {
    await dispose();
  }
  return { timed, fixed };
}

export default async function () {
  const rowCount = setting("ROWS", 100_000);
  const reps = setting("REPS", 30);
  const t0 = performance.now();
  const s = await setUp(rowCount);
  console.log(`seeded ${rowCount} rows × 12 columns in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const list = classes(s.col, s.tableId);
  const { timed, fixed } = await measure(s, list, reps);
  rmSync(s.dir, { recursive: true, force: true });
  const out = timed.map((t, i) => ({
    query: list[i].name,
    rows: `${t.apiCount}/${t.floorCount}`,
    apiP50: median(t.api).toFixed(1),
    apiP99: pct(t.api, 99).toFixed(1),
    floorP50: median(t.floor).toFixed(1),
    floorP99: pct(t.floor, 99).toFixed(1),
    ratioP50: (median(t.api) / median(t.floor)).toFixed(2),
    nodeSqlP50: median(t.node).toFixed(1),
  }));
  out.push({ query: "GET /table/{id} (no query: fixed cost)", rows: "-", apiP50: median(fixed).toFixed(1) });
  out.at(-1).apiP99 = pct(fixed, 99).toFixed(1);
  printTable(`Row queries on ${rowCount} rows × 12 columns, ${reps} requests each (ms)`, out);
  console.log(
    "floor: the same SQL in a bare Worker (scripts/bench/floor-worker.mjs, its own wrangler dev) with the token's " +
      "directory read, alternating with the API; nodeSql: that SQL from Node straight into the files (no HTTP, no Worker)",
  );
}
