// Search (docs/api-guide.md › Search): GET /search on wrangler dev over BENCH_SEARCH_DOCS documents (default 100,000) and
// BENCH_SEARCH_CELLS cells (default 1,000,000: rows of 10 cells), half of each in a workspace the searcher cannot read.
// A search confines its match to the caller's scope words inside FTS5 (docs/api-guide.md › Search), so the hidden
// half is never walked: the figures are those of a searcher whose own half alone is in the index.
// Measured 2026-11-28 on the shared 2-core machine, ranking from each record alone (src/services/search/rank.ts):
// search p50 36.8 ms, p99 95.8 ms beside a floor (GET /project/{id}, same run) of p50 19.8 ms, p99 103 ms; a content
// save 0.83× its time without the index. Three classes match more than the 5,000 records a query may score among the
// searcher's 50,000 (the rank-20 word, the rank-100 five-letter prefix, the phrase of the two commonest words): they
// answer 422 "too broad" in p50 42–48 ms. (With bm25, 2026-11-26: p50 30 ms, p99 76 ms, floor p50 22 ms.)
//   1. p50/p99 of GET /search per query class and overall, beside a LIKE '%term%' scan of the same text on the same
//      local engine, in the same run;
//   2. the time of a content save (PUT /document/{id}/content) with the index kept in step, beside the same save
//      once the index table is swapped for an empty one (the body statement then finds nothing to update).
// Seeding goes through SQL, not the API (100k documents and 1M cells through the API would take hours): documents
// and rows are inserted with json_each, bodies written into the index directly (their content objects are not
// needed for search), and the cell triggers are dropped while the cells go in, the rows indexed in one statement
// afterwards and the triggers put back — exactly what the triggers would have written, faster — and the FTS5
// segments merged once ('optimize') as a live index's automerge or a reindex would have.
//   npm run bench -- search      (BENCH_SEARCH_DOCS, BENCH_SEARCH_CELLS, BENCH_SEARCH_CALLS override the defaults)
import { rmSync } from "node:fs";
import { monotonicFactory } from "ulidx";
import {
  freshState,
  idsBeside,
  openD1,
  shardBindingOf,
  printTable,
  seedUser,
  startApi,
  time,
  tokensFor,
} from "./lib.mjs";

function setting(name, fallback) {
  const v = Number(process.env[`BENCH_SEARCH_${name.toUpperCase()}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

// A deterministic vocabulary of pronounceable words, drawn with a Zipf distribution (word of rank r ∝ 1/r), so a
// few words are everywhere and most are rare, as in real text.
const VOCAB_SIZE = 20_000;
const SYL = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ru",
  "sa",
  "ti",
  "vo",
  "ze",
  "pa",
  "qu",
  "ly",
  "do",
  "fe",
  "gi",
  "ho",
  "ju",
  "be",
  "co",
  "wa",
];
const vocab = Array.from({ length: VOCAB_SIZE }, (_, i) => {
  let w = "";
  let n = i + 400; // at least three syllables
  while (n > 0) {
    w += SYL[n % SYL.length];
    n = Math.floor(n / SYL.length);
  }
  return w;
});
const cumulative = (() => {
  const out = new Float64Array(VOCAB_SIZE);
  let sum = 0;
  for (let r = 0; r < VOCAB_SIZE; r++) out[r] = sum += 1 / (r + 1);
  return out.map((x) => x / sum);
})();
// mulberry32, in 32-bit integer arithmetic. (The LCG used before multiplied in doubles, lost its low bits and
// repeated every 10,466 draws: the text was a few thousand words in a loop, and the rank-5000 word never appeared.)
let seed = 42;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
function zipfWord() {
  const u = rand();
  let lo = 0;
  let hi = VOCAB_SIZE - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < u) lo = mid + 1;
    else hi = mid;
  }
  return vocab[lo];
}
const words = (n) => Array.from({ length: n }, zipfWord).join(" ");

const BODY_WORDS = 80;
const BATCH = 2000;

/** `count` documents of `owner`'s project in `db` (its organization's shard database), ids from `newId` (on that shard). */
async function seedDocuments(db, newId, owner, count) {
  const t = Date.now();
  const ids = [];
  for (let done = 0; done < count; done += BATCH) {
    const docs = Array.from({ length: Math.min(BATCH, count - done) }, () => [newId(), words(3), words(BODY_WORDS)]);
    ids.push(...docs.map((d) => d[0]));
    await db.batch([
      db
        .prepare(
          `INSERT INTO documents (id, project_id, workspace_id, parent_id, user_id, name, type, created_at, updated_at)
           SELECT j.value ->> 0, ?1, ?2, NULL, ?3, j.value ->> 1, 'DOCUMENT', ?4, ?4 FROM json_each(?5) j`,
        )
        .bind(owner.projectId, owner.workspaceId, owner.userId, t, JSON.stringify(docs.map((d) => [d[0], d[1]]))),
      db
        .prepare(
          `UPDATE search_entries SET body = j.value ->> 1 FROM json_each(?1) j WHERE search_entries.record_id = j.value ->> 0`,
        )
        .bind(JSON.stringify(docs.map((d) => [d[0], d[2]]))),
    ]);
  }
  return ids;
}

const COLUMN_TYPES = ["identifier", "text", "text", "text", "text", "number", "number", "number", "number", "number"];

/** A table of `owner`'s project with `rowCount` rows in `db` (its organization's shard database), ids from `newId` (on that shard). */
async function seedRows(db, newId, owner, rowCount) {
  const t = Date.now();
  const table = newId();
  const columns = COLUMN_TYPES.map(() => newId());
  await db.batch([
    db
      .prepare(
        "INSERT INTO tables (id, project_id, workspace_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, ?, 'Bench table', ?, ?)",
      )
      .bind(table, owner.projectId, owner.workspaceId, owner.userId, t, t),
    ...columns.map((id, i) =>
      db
        .prepare(
          "INSERT INTO columns (id, table_id, project_id, workspace_id, name, slug, is_identifier, data, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(
          id,
          table,
          owner.projectId,
          owner.workspaceId,
          `c${i}`,
          `c${i}`,
          i === 0 ? 1 : 0,
          JSON.stringify({ type: COLUMN_TYPES[i] }),
          t,
          t,
        ),
    ),
  ]);
  const ROWS_PER_BATCH = 1000;
  for (let done = 0; done < rowCount; done += ROWS_PER_BATCH) {
    const rowIds = Array.from({ length: Math.min(ROWS_PER_BATCH, rowCount - done) }, () => newId());
    const cells = [];
    for (const rowId of rowIds) {
      COLUMN_TYPES.forEach((type, c) =>
        cells.push([
          newId(),
          rowId,
          columns[c],
          c === 0 ? 1 : 0,
          type === "number" ? Math.round(rand() * 1e6) : words(type === "identifier" ? 2 : 6),
        ]),
      );
    }
    await db.batch([
      db
        .prepare(
          `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, seq, created_at, updated_at)
           SELECT j.value, ?1, ?2, ?3, ?4, ?5 + j.key + 1, ?6, ?6 FROM json_each(?7) j`,
        )
        .bind(table, owner.projectId, owner.workspaceId, owner.userId, done, t, JSON.stringify(rowIds)),
      db
        .prepare(
          `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, is_identifier, data, created_at, updated_at)
           SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, j.value ->> 3, j.value -> 4, ?3, ?3 FROM json_each(?4) j`,
        )
        .bind(table, owner.workspaceId, t, JSON.stringify(cells)),
    ]);
  }
  // What the cell triggers would have written, in one statement per table.
  await db
    .prepare(
      `INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
       SELECT r.id, 'row',
         COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c
           WHERE c.row_id = r.id AND c.is_identifier = 1 AND c.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
         COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
           WHERE c.row_id = r.id AND c.is_identifier = 0 AND c.is_deleted = 0 AND json_type(c.data) = 'text'
             AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
         r.workspace_id, r.project_id, 1
       FROM rows r WHERE r.table_id = ?1
       ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body`,
    )
    .bind(table)
    .run();
  return table;
}

/** Query classes: a word's Zipf rank decides how many records hold it. */
function queryClasses() {
  const w = (rank) => vocab[rank - 1];
  return [
    { name: "common word (rank 20)", q: () => w(20) },
    { name: "medium word (rank 300)", q: () => w(300) },
    { name: "rare word (rank 5000)", q: () => w(5000) },
    { name: "two words", q: () => `${w(40)} ${w(90)}` },
    { name: "prefix (rank-100 stem)", q: () => `${w(100).slice(0, 5)}*` },
    { name: '"phrase"', q: () => `"${w(2)} ${w(3)}"` },
    { name: "a OR b", q: () => `${w(400)} OR ${w(700)}` },
    { name: "word -exclusion", q: () => `${w(150)} -${w(1)}` },
  ];
}

const FLOOR = "floor: GET /project/{id}";

const likeTerm = (q) =>
  q
    .replace(/["*]/g, "")
    .split(/\s+/)
    .find((x) => x && x !== "OR" && !x.startsWith("-")) ?? q;

export default async function () {
  const docCount = setting("docs", 100_000);
  const cellCount = setting("cells", 1_000_000);
  const calls = setting("calls", 400);
  const rowCount = Math.round(cellCount / COLUMN_TYPES.length);
  const ulid = monotonicFactory();
  const dir = freshState();

  // Users through the API (tokens, workspaces, projects), then stop it to seed the same state through SQL.
  let api = await startApi({ dir });
  const searcher = await seedUser(api, "Searcher");
  const other = await seedUser(api, "Hidden");
  const tokens = await tokensFor(api, searcher, 8);
  await api.stop();

  // Each user's records go to the shard database of their organization (docs/scaling.md), with ids on its shard;
  // the two may share a database or not.
  let d1 = await openD1(dir);
  const mineDb = d1.shard(searcher.workspaceId);
  const otherDb = d1.shard(other.workspaceId);
  const databases =
    shardBindingOf(searcher.workspaceId) === shardBindingOf(other.workspaceId) ? [mineDb] : [mineDb, otherDb];
  const seeded = await time(async () => {
    const mine = await seedDocuments(mineDb, idsBeside(ulid, searcher.workspaceId), searcher, Math.ceil(docCount / 2));
    await seedDocuments(otherDb, idsBeside(ulid, other.workspaceId), other, Math.floor(docCount / 2));
    const triggers = (
      await mineDb
        .prepare(
          "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name IN ('search_cells_ai', 'search_cells_au')",
        )
        .all()
    ).results;
    for (const db of databases) for (const tr of triggers) await db.prepare(`DROP TRIGGER ${tr.name}`).run();
    await seedRows(mineDb, idsBeside(ulid, searcher.workspaceId), searcher, Math.ceil(rowCount / 2));
    await seedRows(otherDb, idsBeside(ulid, other.workspaceId), other, Math.floor(rowCount / 2));
    for (const db of databases) for (const tr of triggers) await db.prepare(tr.sql).run();
    // Bulk seeding leaves the index in many small segments (one per batch); a live index merges them as it goes
    // (FTS5 automerge), and `npm run search:reindex` ends with a full rebuild. Merge once, as either would.
    for (const db of databases) await db.prepare("INSERT INTO search_fts (search_fts) VALUES ('optimize')").run();
    return mine;
  });
  const myDocs = seeded.out;
  const counts = { documents: 0, cells: 0, entries: 0 };
  for (const db of databases) {
    const c = await db
      .prepare(
        "SELECT (SELECT COUNT(*) FROM documents) AS documents, (SELECT COUNT(*) FROM cells) AS cells, (SELECT COUNT(*) FROM search_entries) AS entries",
      )
      .first();
    for (const k of Object.keys(counts)) counts[k] += c[k];
  }
  console.log(
    `seeded ${counts.documents} documents, ${counts.cells} cells, ${counts.entries} index entries through SQL in ${(seeded.ms / 1000).toFixed(0)} s`,
  );

  // LIKE baseline on the same text and engine (the API is down: one process on the state at a time).
  const classes = queryClasses();
  const likeMs = new Map();
  const LIKE_SQL = `SELECT e.record_id FROM search_entries e WHERE (e.title LIKE ?1 OR e.body LIKE ?1) AND e.live = 1 AND e.workspace_id = ?2 LIMIT 20`;
  for (const c of classes) {
    const xs = [];
    for (let i = 0; i < 5; i++)
      xs.push(
        (
          await time(() =>
            mineDb
              .prepare(LIKE_SQL)
              .bind(`%${likeTerm(c.q())}%`, searcher.workspaceId)
              .all(),
          )
        ).ms,
      );
    likeMs.set(c.name, xs);
  }
  await d1.dispose();

  // GET /search through wrangler dev: warm up, then the classes in turn, tokens in turn (per-user rate limit).
  api = await startApi({ dir });
  const perClass = new Map(classes.map((c) => [c.name, []]));
  const hitsOf = new Map();
  const saveDoc = myDocs[0];
  const saveWith = [];
  const blocks = (k) =>
    Array.from({ length: 8 }, (_, i) => ({
      id: `b${i}`,
      type: "paragraph",
      props: {},
      content: [{ type: "text", text: `${k} ${words(10)}`, styles: {} }],
      children: [],
    }));
  try {
    // A query matching more records than one may score (MAX_CANDIDATES) is answered 422 "too broad": timed as well,
    // and reported as such in the hits column.
    const searchOnce = async (q) => {
      try {
        return (await api.call("GET", `/search?q=${encodeURIComponent(q)}&limit=20`, { token: tokens.next() })).data
          .length;
      } catch (err) {
        if (/→ 422: .*too broad/.test(String(err.message))) return "422 too broad";
        throw err;
      }
    };
    for (const c of classes) await searchOnce(c.q());
    // The floor: the cheapest authenticated read (one D1 round trip) on the same server, interleaved.
    perClass.set(FLOOR, []);
    for (let i = 0; i < calls; i++) {
      if (i % classes.length === 0)
        perClass
          .get(FLOOR)
          .push((await time(() => api.call("GET", `/project/${searcher.projectId}`, { token: tokens.next() }))).ms);
      const c = classes[i % classes.length];
      const { ms, out } = await time(() => searchOnce(c.q()));
      perClass.get(c.name).push(ms);
      hitsOf.set(c.name, out);
    }

    // Content saves with the index in step: a ~80-word, 8-block document, saved again and again.
    for (let i = 0; i < 5; i++)
      await api.call("PUT", `/document/${saveDoc}/content`, { token: tokens.next(), body: { blocks: blocks(i) } });
    for (let i = 0; i < 60; i++)
      saveWith.push(
        (
          await time(() =>
            api.call("PUT", `/document/${saveDoc}/content`, { token: tokens.next(), body: { blocks: blocks(i) } }),
          )
        ).ms,
      );
  } finally {
    await api.stop();
  }

  // The same saves without the index: the index table swapped for an empty one (in the saved document's shard
  // database), so the body statement updates nothing.
  d1 = await openD1(dir);
  const saveDb = d1.shard(saveDoc);
  for (const sql of [
    "DROP TRIGGER search_entries_ai",
    "DROP TRIGGER search_entries_ad",
    "DROP TRIGGER search_entries_au",
    "DROP TRIGGER search_documents_ai",
    "DROP TRIGGER search_documents_au",
    "DROP TRIGGER search_cells_ai",
    "DROP TRIGGER search_cells_au",
    "DROP TRIGGER search_rows_au",
    "DROP TRIGGER search_tables_au",
    "ALTER TABLE search_entries RENAME TO search_entries_bench",
    "CREATE TABLE search_entries (id integer PRIMARY KEY, record_id text NOT NULL UNIQUE, kind text NOT NULL, title text NOT NULL DEFAULT '', body text NOT NULL DEFAULT '', workspace_id text, project_id text, live integer NOT NULL DEFAULT 0)",
  ])
    await saveDb.prepare(sql).run();
  await d1.dispose();
  api = await startApi({ dir });
  const saveWithout = [];
  try {
    for (let i = 0; i < 5; i++)
      await api.call("PUT", `/document/${saveDoc}/content`, { token: tokens.next(), body: { blocks: blocks(i) } });
    for (let i = 0; i < 60; i++)
      saveWithout.push(
        (
          await time(() =>
            api.call("PUT", `/document/${saveDoc}/content`, { token: tokens.next(), body: { blocks: blocks(i) } }),
          )
        ).ms,
      );
  } finally {
    await api.stop();
    rmSync(dir, { recursive: true, force: true });
  }

  const floor = perClass.get(FLOOR);
  perClass.delete(FLOOR);
  const all = [...perClass.values()].flat();
  const allLike = [...likeMs.values()].flat();
  printTable(
    `GET /search on ${counts.documents} documents + ${counts.cells} cells (searcher reads half), ${calls} calls`,
    [
      ...classes.map((c) => ({
        query: c.name,
        hits: hitsOf.get(c.name),
        "search p50 ms": pct(perClass.get(c.name), 50).toFixed(1),
        "search p99 ms": pct(perClass.get(c.name), 99).toFixed(1),
        "LIKE scan p50 ms": pct(likeMs.get(c.name), 50).toFixed(1),
      })),
      {
        query: FLOOR,
        hits: "",
        "search p50 ms": pct(floor, 50).toFixed(1),
        "search p99 ms": pct(floor, 99).toFixed(1),
        "LIKE scan p50 ms": "",
      },
      {
        query: "ALL",
        hits: "",
        "search p50 ms": pct(all, 50).toFixed(1),
        "search p99 ms": pct(all, 99).toFixed(1),
        "LIKE scan p50 ms": pct(allLike, 50).toFixed(1),
      },
    ],
  );
  const w50 = pct(saveWith, 50);
  const wo50 = pct(saveWithout, 50);
  printTable("Content save (PUT /document/{id}/content, 8 blocks), 60 saves each", [
    { save: "with the index in step", "p50 ms": w50.toFixed(1), "p99 ms": pct(saveWith, 99).toFixed(1) },
    { save: "index table empty (no FTS work)", "p50 ms": wo50.toFixed(1), "p99 ms": pct(saveWithout, 99).toFixed(1) },
  ]);
  console.log(
    `targets: search p50 ${pct(all, 50).toFixed(1)} ms (≤ 50), p99 ${pct(all, 99).toFixed(1)} ms (≤ 200); ` +
      `save ${(w50 / wo50).toFixed(2)}× its time without the index (≤ 1.3×). LIKE '%term%' (LIMIT 20, the same workspace) p50 ${pct(allLike, 50).toFixed(1)} ms`,
  );
}
