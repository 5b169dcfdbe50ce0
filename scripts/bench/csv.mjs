// CSV import and export (docs/api-guide.md › CSV import and export), in one run through one real local API.
//
// Bounds (issue 34, finding 4; the default): while one tenant imports 100,000 rows × 4 columns and then 5,000 rows ×
// 200 columns (partial mode, then the 100,000 × 4 file again in atomic mode), another tenant on the same shard
// database reads its table in a closed loop; beside an idle phase, each phase prints the import's time, the peak
// RSS of the workerd process (sampled every 100 ms from /proc) and the other tenant's read latency (p50, p95, max).
// The Workers isolate limit is 128 MB; local workerd's RSS also holds the SQLite pages of every local database.
//   npm run bench -- csv        (BENCH_CSV_ROWS scales the 100,000-row file; BENCH_CSV_WIDE_ROWS the 5,000-row one)
//
// Throughput (issue 25; BENCH_CSV_THROUGHPUT=1 adds it): the same data (5 columns: identifier, text, number,
// checkbox, date) imported and exported beside the bulk-row API and the row listing:
//   import: one POST /table/{id}/import of N rows   vs   N/1000 calls of POST /table/{id}/rows (1000 rows each)
//   export: GET /table/{id}/export.csv read to the end   vs   paging GET /table/{id}/rows?limit=1000 to the end
// (BENCH_CSV_PASSES for the read side, default 2). Targets: import throughput ≥ 0.7× the bulk API's; export time ≤ 2× the listing's.
import { median, printTable, seedUser, shardBindingOf, startApi, time, tokensFor, workerdStats } from "./lib.mjs";

const ROWS_PER_CALL = 1000;

function setting(name, fallback) {
  const v = Number(process.env[`BENCH_CSV_${name.toUpperCase()}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** Row i: identifier, text, number, checkbox, date (as stored and as CSV text). */
function rowValues(i) {
  const date = Date.UTC(2020, 0, 1) + (i % 2000) * 86_400_000;
  return [`Row ${i}`, `Some text for row ${i}, a little longer than a word`, i * 1.25, i % 2 === 0, date];
}

function csvLine(i) {
  const [name, text, n, b, d] = rowValues(i);
  return `${name},"${text}",${n},${b},${new Date(d).toISOString().slice(0, 10)}\r\n`;
}

async function makeTable(api, token, projectId, name) {
  const table = await api.call("POST", "/table", { token, body: { projectId, name } });
  const tableId = table.data._id;
  const colIds = [table.data.columns[0]._id];
  for (const [colName, type] of [
    ["Text", "text"],
    ["Number", "number"],
    ["Done", "checkbox"],
    ["When", "date"],
  ]) {
    colIds.push(
      (await api.call("POST", `/table/${tableId}/column`, { token, body: { name: colName, data: { type } } })).data._id,
    );
  }
  return { tableId, colIds };
}

async function readAll(url, token) {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!res.ok) throw new Error(`GET ${url} → ${res.status}: ${(await res.text()).slice(0, 300)}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body) {
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 10) lines++;
  }
  return { bytes, lines };
}

async function throughput(api) {
  const total = setting("rows", 100_000);
  const passes = setting("passes", 2);
  const calls = Math.ceil(total / ROWS_PER_CALL);
  {
    const u = await seedUser(api);
    // Listing pages and bulk calls together pass one user's 300 requests a minute: spread them over helpers.
    const tokens = await tokensFor(api, u, 1 + Math.ceil((calls * (passes + 1)) / 250));
    const bulk = await makeTable(api, u.token, u.projectId, "Bulk");
    const imported = await makeTable(api, u.token, u.projectId, "Imported");

    // Import side: the bulk-row API, call after call, then the same rows as one CSV upload.
    const bulkRun = await time(async () => {
      for (let k = 0; k < calls; k++) {
        const n = Math.min(ROWS_PER_CALL, total - k * ROWS_PER_CALL);
        const rows = Array.from({ length: n }, (_, i) => ({
          cells: Object.fromEntries(rowValues(k * ROWS_PER_CALL + i).map((v, c) => [bulk.colIds[c], v])),
        }));
        await api.call("POST", `/table/${bulk.tableId}/rows`, { token: tokens.next(), body: { rows } });
      }
    });
    const csvText = "Name,Text,Number,Done,When\r\n" + Array.from({ length: total }, (_, i) => csvLine(i)).join("");
    const importRun = await time(() =>
      api.call("POST", `/table/${imported.tableId}/import`, {
        token: u.token,
        raw: csvText,
        headers: { "content-type": "text/csv" },
      }),
    );
    const result = importRun.out.data;
    if (result.imported !== total || result.failed !== 0)
      throw new Error(
        `import wrote ${result.imported} of ${total} (failed ${result.failed}): ${JSON.stringify(result.errors.slice(0, 3))}`,
      );
    if (result.columns.some((c) => c.created)) throw new Error("the import created columns: headers did not match");

    // Read side: page through the listing, and read the export to its end, alternating passes.
    const listMs = [];
    const exportMs = [];
    let exported;
    for (let p = 0; p < passes; p++) {
      listMs.push(
        (
          await time(async () => {
            let cursor;
            let n = 0;
            do {
              const res = await api.call(
                "GET",
                `/table/${imported.tableId}/rows?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
                { token: tokens.next() },
              );
              n += res.data.length;
              cursor = res.nextCursor;
            } while (cursor);
            if (n !== total) throw new Error(`listed ${n} of ${total}`);
          })
        ).ms,
      );
      const e = await time(() => readAll(`${api.url}/table/${imported.tableId}/export.csv`, tokens.next()));
      exportMs.push(e.ms);
      exported = e.out;
    }
    if (exported.lines !== total + 1) throw new Error(`the export has ${exported.lines} lines for ${total} rows`);

    const rps = (ms) => Math.round((total / ms) * 1000);
    const list = median(listMs);
    const exp = median(exportMs);
    printTable(`Import: ${total} rows × 5 columns (${(csvText.length / 1024 / 1024).toFixed(1)} MiB of CSV)`, [
      {
        side: `bulk API POST /table/{id}/rows (${calls} calls × ${ROWS_PER_CALL})`,
        ms: bulkRun.ms.toFixed(0),
        rowsPerSec: rps(bulkRun.ms),
      },
      { side: "CSV POST /table/{id}/import (1 call)", ms: importRun.ms.toFixed(0), rowsPerSec: rps(importRun.ms) },
    ]);
    printTable(
      `Export: ${total} rows, median of ${passes} passes (${(exported.bytes / 1024 / 1024).toFixed(1)} MiB of CSV)`,
      [
        { side: "listing GET /table/{id}/rows (pages of 1000)", ms: list.toFixed(0), rowsPerSec: rps(list) },
        { side: "CSV GET /table/{id}/export.csv (streamed)", ms: exp.toFixed(0), rowsPerSec: rps(exp) },
      ],
    );
    const importRatio = bulkRun.ms / importRun.ms;
    const exportRatio = exp / list;
    console.log(
      `ratios: import throughput ${importRatio.toFixed(2)}× the bulk API (target ≥ 0.7×: ${importRatio >= 0.7 ? "met" : "NOT met"}), ` +
        `export time ${exportRatio.toFixed(2)}× the listing (target ≤ 2×: ${exportRatio <= 2 ? "met" : "NOT met"})`,
    );
  }
}

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
}

/** Runs `work` while sampling workerd's RSS and reading another tenant's table in a closed loop. */
async function phase(api, reader, work) {
  const before = workerdStats(api.pgid, (p) => p.rssMb);
  let peak = before ?? 0;
  const sampler = setInterval(() => {
    const mb = workerdStats(api.pgid, (p) => p.rssMb);
    if (mb !== null && mb > peak) peak = mb;
  }, 100);
  const latencies = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t0 = performance.now();
      await api.call("GET", `/table/${reader.tableId}/rows?limit=50`, { token: reader.tokens.next() });
      if (running) latencies.push(performance.now() - t0);
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  const t0 = performance.now();
  let out;
  try {
    out = await work();
  } finally {
    running = false;
    clearInterval(sampler);
    await loop;
  }
  const ms = performance.now() - t0;
  return {
    ms,
    out,
    before,
    peak,
    reads: latencies.length,
    p50: pct(latencies, 50),
    p95: pct(latencies, 95),
    max: Math.max(...latencies),
  };
}

function csvOf(rows, cols) {
  const header = ["Name", ...Array.from({ length: cols - 1 }, (_, c) => `C${c}`)].join(",");
  const lines = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const fields = [`Row ${r}`];
    for (let c = 1; c < cols; c++) fields.push(c % 2 ? `text ${r}.${c}` : String(r * c));
    lines[r] = fields.join(",");
  }
  return `${header}\r\n${lines.join("\r\n")}\r\n`;
}

async function bounds(api) {
  const importer = await seedUser(api, "Importer");
  // The other tenant on the same shard database as the importer (a database has one writer; that is the contention).
  let other = await seedUser(api, "Other");
  for (let i = 0; i < 30 && shardBindingOf(other.workspaceId) !== shardBindingOf(importer.workspaceId); i++)
    other = await seedUser(api, `Other${i}`);
  const sameShard = shardBindingOf(other.workspaceId) === shardBindingOf(importer.workspaceId);
  // Reads every ~60 ms pass one user's 300 a minute: spread them over helpers of the other tenant's workspace.
  const tokens = await tokensFor(api, other, 8);
  const table = await api.call("POST", "/table", {
    token: other.token,
    body: { projectId: other.projectId, name: "Reads" },
  });
  const tableId = table.data._id;
  await api.call("POST", `/table/${tableId}/rows`, {
    token: other.token,
    body: { rows: Array.from({ length: 50 }, (_, i) => ({ cells: { [table.data.columns[0]._id]: `r${i}` } })) },
  });
  const reader = { tableId, tokens };

  const narrowRows = setting("rows", 100_000);
  const wideRows = setting("wide_rows", 5_000);
  const narrow = csvOf(narrowRows, 4);
  const wide = csvOf(wideRows, 200);
  const importInto = async (name, text, mode) => {
    const t = await api.call("POST", "/table", {
      token: importer.token,
      body: { projectId: importer.projectId, name },
    });
    const t0 = performance.now();
    const http = await fetch(`${api.url}/table/${t.data._id}/import?mode=${mode}`, {
      method: "POST",
      headers: { authorization: `Bearer ${importer.token}`, "content-type": "text/csv" },
      body: text,
    });
    const body = await http.text();
    if (!http.ok)
      throw new Error(
        `${name}: import → ${http.status} after ${(performance.now() - t0).toFixed(0)} ms: ${[...http.headers].join(" ")} ${body.slice(0, 500)}`,
      );
    const res = JSON.parse(body);
    if (res.data.failed !== 0)
      throw new Error(`${name}: ${res.data.failed} rows failed: ${JSON.stringify(res.data.errors.slice(0, 3))}`);
    return res.data.imported;
  };
  const mb = (n) => (n === null || n === undefined ? "n/a" : n.toFixed(0));
  const rows = [];
  const add = (label, r) =>
    rows.push({
      phase: label,
      importMs: r.out === undefined ? "" : r.ms.toFixed(0),
      rssBeforeMb: mb(r.before),
      rssPeakMb: mb(r.peak),
      reads: r.reads,
      p50Ms: r.p50.toFixed(0),
      p95Ms: r.p95.toFixed(0),
      maxMs: r.max.toFixed(0),
    });
  add("idle (5 s)", await phase(api, reader, () => new Promise((r) => setTimeout(r, 5000))));
  add(
    `partial ${narrowRows} × 4 (${(narrow.length / 1048576).toFixed(1)} MiB)`,
    await phase(api, reader, () => importInto("Narrow", narrow, "partial")),
  );
  add(
    `partial ${wideRows} × 200 (${(wide.length / 1048576).toFixed(1)} MiB)`,
    await phase(api, reader, () => importInto("Wide", wide, "partial")),
  );
  add(`atomic ${narrowRows} × 4`, await phase(api, reader, () => importInto("NarrowAtomic", narrow, "atomic")));
  add(`atomic ${wideRows} × 200`, await phase(api, reader, () => importInto("WideAtomic", wide, "atomic")));
  add("idle again (5 s)", await phase(api, reader, () => new Promise((r) => setTimeout(r, 5000))));
  printTable(
    `CSV import bounds: another tenant's reads (GET 50 rows${sameShard ? ", same shard database" : ", NOT on the same shard"}) and workerd RSS`,
    rows,
  );
}

export default async function () {
  const api = await startApi();
  try {
    await bounds(api);
    if (process.env.BENCH_CSV_THROUGHPUT === "1") await throughput(api);
  } finally {
    await api.stop();
  }
}
