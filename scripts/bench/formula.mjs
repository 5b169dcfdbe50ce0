// npm run bench -- formula: E3 (apply a formula to every row) on tables of 1k, 10k and 100k rows,
// beside a raw D1 bulk upsert of the same number of cells (the json_each upsert the engine uses) in the same run.
// Targets (issue 23): E3 on 100k rows within 2× the raw write; E3 100k / 10k ≤ 12 (linear, no per-row round trips).
// Also measured, as the floor of the same work without application code: the engine's own page reads of the
// inputs (keyset pages of 5,000 rows, one JSON text per column each) followed by the same raw upsert.
//
// Seeding: the table routes may not exist on this branch, so tables are written straight into the API's own
// persisted D1 (getPlatformProxy on the wrangler dev state dir) while the API is stopped: start the API once
// to register a user through HTTP, stop it, seed, start it again on the same state.
import { rmSync } from "node:fs";
import { monotonicFactory } from "ulidx";
import {
  freshState,
  idsBeside,
  median,
  openD1,
  printTable,
  rawD1,
  seedUser,
  startApi,
  suffixBeside,
  time,
} from "./lib.mjs";

const ulid = monotonicFactory();
const RUNS = 5;
const CHUNK = 5_000;

// The engine's cell write (src/services/formula/store.ts, upsertSql): one column per statement, cells as
// [rowId, data], the conflict branch only where the stored text differs, ids = 20-char prefix + index + the
// table's shard digits (?8).
const UPSERT_SQL = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT ?6 || printf('%06d', key) || ?8, ?1, json_extract(value, '$[0]'), ?5, ?2, '', ?7, json_extract(value, '$[1]'), 0, ?3, ?3
  FROM json_each(?4) WHERE json_extract(value, '$[1]') IS NOT NULL
  ON CONFLICT(row_id, column_id) DO UPDATE SET data = excluded.data, is_deleted = 0, updated_at = excluded.updated_at
    WHERE cells.data IS NOT excluded.data OR cells.is_deleted = 1`;

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const idPrefix = () =>
  ulid().slice(0, 10) + Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => CROCKFORD[b & 31]).join("");

function chunks(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * A table with Name (identifier), A, B (numbers) and F (text, to become the formula) and `n` rows, in `db`: the
 * shard database of the owner's organization, with ids on its shard (docs/scaling.md), as the API would issue them.
 */
async function seedTable(db, owner, n) {
  const now = Date.now();
  const newId = idsBeside(ulid, owner.workspaceId);
  const suffix = suffixBeside(owner.workspaceId);
  const tableId = newId();
  const col = { Name: newId(), A: newId(), B: newId(), F: newId() };
  const stmts = [
    db
      .prepare(
        "INSERT INTO tables (id, project_id, workspace_id, user_id, name, is_deleted, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?)",
      )
      .bind(tableId, owner.projectId, owner.workspaceId, owner.userId, `Bench ${n}`, now, now),
    ...Object.entries(col).map(([name, id], i) =>
      db
        .prepare(
          `INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, is_deleted, created_at, updated_at)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?)`,
        )
        .bind(
          id,
          tableId,
          owner.projectId,
          owner.workspaceId,
          name,
          name.toLowerCase(),
          name === "Name" ? 1 : 0,
          JSON.stringify({ type: name === "Name" ? "identifier" : name === "F" ? "text" : "number" }),
          now + i,
          now + i,
        ),
    ),
  ];
  const rowIds = Array.from({ length: n }, () => newId());
  for (const ids of chunks(rowIds, CHUNK)) {
    stmts.push(
      db
        .prepare(
          `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, is_deleted, created_at, updated_at)
      SELECT value, ?1, ?2, ?3, ?4, 0, ?5, ?5 FROM json_each(?6)`,
        )
        .bind(tableId, owner.projectId, owner.workspaceId, owner.userId, now, JSON.stringify(ids)),
    );
  }
  const values = { Name: (i) => `Row ${i}`, A: (i) => (i % 1000) + 1, B: (i) => (i % 13) + 1 };
  for (const [name, value] of Object.entries(values)) {
    const cells = rowIds.map((rowId, i) => [rowId, JSON.stringify(value(i))]);
    for (const part of chunks(cells, CHUNK)) {
      stmts.push(
        db
          .prepare(UPSERT_SQL)
          .bind(
            tableId,
            owner.workspaceId,
            now,
            JSON.stringify(part),
            col[name],
            idPrefix(),
            name === "Name" ? 1 : 0,
            suffix,
          ),
      );
    }
  }
  for (const batch of chunks(stmts, 50)) await db.batch(batch);
  return { tableId, col, n, rowIds };
}

const formula = (t, k) => ({
  description: [{ kind: "text", text: `ROUND(A * B / ${k} + IF(A > B, 1, 0), 2)` }],
  expression: {
    kind: "call",
    fn: "ROUND",
    args: [
      {
        kind: "op",
        op: "+",
        args: [
          {
            kind: "op",
            op: "/",
            args: [
              {
                kind: "op",
                op: "*",
                args: [
                  { kind: "column", columnId: t.col.A },
                  { kind: "column", columnId: t.col.B },
                ],
              },
              { kind: "literal", value: k },
            ],
          },
          {
            kind: "call",
            fn: "IF",
            args: [
              {
                kind: "op",
                op: ">",
                args: [
                  { kind: "column", columnId: t.col.A },
                  { kind: "column", columnId: t.col.B },
                ],
              },
              { kind: "literal", value: 1 },
              { kind: "literal", value: 0 },
            ],
          },
        ],
      },
      { kind: "literal", value: 2 },
    ],
  },
});

const expected = (i, k) =>
  Math.round(((((i % 1000) + 1) * ((i % 13) + 1)) / k + ((i % 1000) + 1 > (i % 13) + 1 ? 1 : 0)) * 100) / 100;

/**
 * The raw write E3 is measured against: the same upsert statement, same chunking, one atomic batch, writing
 * `rowIds.length` cells of column `columnId` with new values.
 */
async function rawUpsert(db, { tableId, columnId, rowIds }, k) {
  const cells = rowIds.map((rowId, i) => [rowId, JSON.stringify(expected(i, k))]);
  const stmts = chunks(cells, CHUNK).map((part) =>
    db
      .prepare(UPSERT_SQL)
      .bind(tableId, "bench", Date.now(), JSON.stringify(part), columnId, idPrefix(), 0, suffixBeside(tableId)),
  );
  const { ms } = await time(() => db.batch(stmts));
  return ms;
}

// The engine's page read (src/services/formula/rowPages.ts, columnScanSql) of columns A and B: the page's row ids,
// then one range scan of each column's cells on the (column_id, row_id) index, aligned with the ids or as pairs.
const columnScan = (
  param,
) => `(SELECT CASE WHEN group_concat(c.row_id, ',') IS (SELECT ids FROM b) THEN json_group_array(CASE WHEN c.is_deleted = 0 THEN c.data END)
      ELSE json_group_array(json_array(c.row_id, CASE WHEN c.is_deleted = 0 THEN c.data END)) END
      FROM cells c WHERE c.column_id = ?${param} AND c.row_id > ?2 AND c.row_id <= (SELECT hi FROM b))`;
const PAGE_SQL = `WITH p AS MATERIALIZED (SELECT id FROM rows WHERE table_id = ?1 AND is_deleted = 0 AND id > ?2 ORDER BY id LIMIT ?3),
    b AS MATERIALIZED (SELECT max(id) AS hi, group_concat(id, ',') AS ids FROM p)
    SELECT (SELECT ids FROM b), ${columnScan(4)}, ${columnScan(5)}`;

/** The floor: read every page of the inputs as the engine does, then the raw upsert of the results. */
async function rawReadAndUpsert(db, t, k) {
  const { ms } = await time(async () => {
    let after = "";
    for (;;) {
      const [row] = await db.prepare(PAGE_SQL).bind(t.tableId, after, CHUNK, t.col.A, t.col.B).raw();
      const ids = row[0] ? row[0].split(",") : [];
      for (const column of row.slice(1)) JSON.parse(column);
      if (ids.length === 0) break;
      after = ids.at(-1);
      if (ids.length < CHUNK) break;
    }
    const cells = t.rowIds.map((rowId, i) => [rowId, JSON.stringify(expected(i, k))]);
    await db.batch(
      chunks(cells, CHUNK).map((part) =>
        db
          .prepare(UPSERT_SQL)
          .bind(t.tableId, "bench", Date.now(), JSON.stringify(part), t.col.F, idPrefix(), 0, suffixBeside(t.tableId)),
      ),
    );
  });
  return ms;
}

export default async function () {
  // FORMULA_BENCH_SIZES=1000,10000 narrows the run (npm run bench takes benchmark names as its arguments).
  const sizes = (process.env.FORMULA_BENCH_SIZES ?? "")
    .split(",")
    .map(Number)
    .filter((x) => x > 0);
  const SIZES = sizes.length ? sizes : [1_000, 10_000, 100_000];
  const dir = freshState();

  // 1. A user, workspace and project through the real API.
  let api = await startApi({ dir });
  const owner = await seedUser(api, "FormulaBench");
  await api.stop();

  // 2. Tables seeded straight into the API's D1 while it is stopped: the shard database of the owner's organization.
  const seeded = await openD1(dir);
  const tables = [];
  for (const n of SIZES) {
    const { ms, out } = await time(() => seedTable(seeded.shard(owner.workspaceId), owner, n));
    console.log(`seeded ${n} rows (${3 * n} cells) in ${ms.toFixed(0)} ms`);
    tables.push(out);
  }
  await seeded.dispose();

  // 3. E3 on each table: a first apply (creates every cell), then RUNS that each rewrite every cell (k
  // alternates; the median is compared), then one that changes nothing.
  api = await startApi({ dir });
  const results = [];
  try {
    for (const t of tables) {
      const first = await time(() =>
        api.call("POST", `/table/column/${t.col.F}/computed/apply`, { token: owner.token, body: formula(t, 5) }),
      );
      if (first.out.updatedRows !== t.n) throw new Error(`first E3 on ${t.n} rows updated ${first.out.updatedRows}`);
      const samples = [];
      for (let run = 0; run < RUNS; run++) {
        const k = run % 2 === 0 ? 7 : 9;
        const { ms, out } = await time(() =>
          api.call("POST", `/table/column/${t.col.F}/computed/apply`, { token: owner.token, body: formula(t, k) }),
        );
        if (out.updatedRows !== t.n) throw new Error(`E3 on ${t.n} rows updated ${out.updatedRows}`);
        samples.push(ms);
      }
      const unchanged = await time(() =>
        api.call("POST", `/table/column/${t.col.F}/computed/apply`, { token: owner.token, body: formula(t, 7) }),
      );
      if (unchanged.out.updatedRows !== 0)
        throw new Error(`identical E3 on ${t.n} rows updated ${unchanged.out.updatedRows}`);
      results.push({ n: t.n, e3: median(samples), e3First: first.ms, e3Unchanged: unchanged.ms });
      console.log(
        `E3 ${t.n} rows: first ${first.ms.toFixed(0)} ms; rewrites ${samples.map((x) => x.toFixed(0)).join(", ")} ms; unchanged ${unchanged.ms.toFixed(0)} ms`,
      );
    }
  } finally {
    await api.stop();
  }

  // 4. Raw D1 upserts of the same cells in the API's own database (same rows, same state), then of the same
  // number of cells into a fresh database, for reference.
  const same = await openD1(dir);
  try {
    for (const [i, r] of results.entries()) {
      const t = tables[i];
      const samples = [];
      for (let run = 0; run < RUNS; run++)
        samples.push(
          await rawUpsert(
            same.shard(t.tableId),
            { tableId: t.tableId, columnId: t.col.F, rowIds: t.rowIds },
            run % 2 === 0 ? 11 : 13,
          ),
        );
      r.raw = median(samples);
      console.log(
        `raw upsert of the ${r.n} E3 cells in the same database: ${samples.map((x) => x.toFixed(0)).join(", ")} ms`,
      );
      const floor = [];
      for (let run = 0; run < RUNS; run++)
        floor.push(await rawReadAndUpsert(same.shard(t.tableId), t, run % 2 === 0 ? 11 : 13));
      r.floor = median(floor);
      console.log(
        `raw page reads + upsert of the ${r.n} E3 cells (the floor): ${floor.map((x) => x.toFixed(0)).join(", ")} ms`,
      );
    }
  } finally {
    await same.dispose();
  }
  const fresh = await rawD1();
  try {
    for (const r of results) {
      const target = { tableId: ulid(), columnId: ulid(), rowIds: Array.from({ length: r.n }, () => ulid()) };
      r.rawFreshFirst = await rawUpsert(fresh.db, target, 5);
      const samples = [];
      for (let run = 0; run < RUNS; run++) samples.push(await rawUpsert(fresh.db, target, run % 2 === 0 ? 11 : 13));
      r.rawFresh = median(samples);
      console.log(
        `raw upsert of ${r.n} cells into a fresh database: first ${r.rawFreshFirst.toFixed(0)} ms; rewrites ${samples.map((x) => x.toFixed(0)).join(", ")} ms`,
      );
    }
  } finally {
    await fresh.dispose();
  }

  printTable(
    `E3 vs raw D1 bulk upsert of the same cells (medians of ${RUNS} runs that each rewrite every cell)`,
    results.map((r) => ({
      rows: r.n,
      "E3 first ms": Math.round(r.e3First),
      "E3 ms": Math.round(r.e3),
      "E3 unchanged ms": Math.round(r.e3Unchanged),
      "raw upsert ms": Math.round(r.raw),
      "E3 / raw": +(r.e3 / r.raw).toFixed(2),
      "floor ms": Math.round(r.floor),
      "E3 / floor": +(r.e3 / r.floor).toFixed(2),
      "raw fresh db first ms": Math.round(r.rawFreshFirst),
      "raw upsert, fresh db ms": Math.round(r.rawFresh),
      "E3 / raw fresh": +(r.e3 / r.rawFresh).toFixed(2),
      "rows/s": Math.round(r.n / (r.e3 / 1000)),
    })),
  );
  rmSync(dir, { recursive: true, force: true });
  const big = results.find((r) => r.n === 100_000);
  const mid = results.find((r) => r.n === 10_000);
  if (big && mid) {
    const vsRaw = big.e3 / big.raw;
    const scale = big.e3 / mid.e3;
    console.log(
      `100k: E3 / raw upsert of the same cells = ${vsRaw.toFixed(2)} (target ≤ 2): ${vsRaw <= 2 ? "met" : "MISSED"}`,
    );
    console.log(
      `100k: E3 / floor (the same page reads and upsert, no application code) = ${(big.e3 / big.floor).toFixed(2)}; floor / raw upsert = ${(big.floor / big.raw).toFixed(2)}`,
    );
    console.log(`100k: E3 / raw upsert into a fresh database = ${(big.e3 / big.rawFresh).toFixed(2)} (for reference)`);
    console.log(`E3 100k / 10k = ${scale.toFixed(2)} (target ≤ 12): ${scale <= 12 ? "met" : "MISSED"}`);
  }
}
