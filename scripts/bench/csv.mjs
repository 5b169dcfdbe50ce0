// CSV import and export (docs/api-guide.md › CSV import and export) beside the bulk-row API and the row listing, on
// the same data (5 columns: identifier, text, number, checkbox, date) through one real local API, in one run:
//   import: one POST /table/{id}/import of N rows   vs   N/1000 calls of POST /table/{id}/rows (1000 rows each)
//   export: GET /table/{id}/export.csv read to the end   vs   paging GET /table/{id}/rows?limit=1000 to the end
//   npm run bench -- csv        (BENCH_CSV_ROWS, default 100000; BENCH_CSV_PASSES for the read side, default 2)
// Targets (issue 25): import throughput ≥ 0.7× the bulk API's; export time ≤ 2× the listing's.
import { median, printTable, seedUser, startApi, time, tokensFor } from "./lib.mjs";

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
  for (const [colName, type] of [["Text", "text"], ["Number", "number"], ["Done", "checkbox"], ["When", "date"]]) {
    colIds.push((await api.call("POST", `/table/${tableId}/column`, { token, body: { name: colName, data: { type } } })).data._id);
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

export default async function () {
  const total = setting("rows", 100_000);
  const passes = setting("passes", 2);
  const calls = Math.ceil(total / ROWS_PER_CALL);
  const api = await startApi();
  try {
    const u = await seedUser(api);
    // Listing pages and bulk calls together pass one user's 300 requests a minute: spread them over helpers.
    const tokens = await tokensFor(api, u, 1 + Math.ceil((calls * (passes + 1)) / 250));
    const bulk = await makeTable(api, u.token, u.projectId, "Bulk");
    const imported = await makeTable(api, u.token, u.projectId, "Imported");

    // Import side: the bulk-row API, call after call, then the same rows as one CSV upload.
    const bulkRun = await time(async () => {
      for (let k = 0; k < calls; k++) {
        const n = Math.min(ROWS_PER_CALL, total - k * ROWS_PER_CALL);
        const rows = Array.from({ length: n }, (_, i) => ({ cells: Object.fromEntries(rowValues(k * ROWS_PER_CALL + i).map((v, c) => [bulk.colIds[c], v])) }));
        await api.call("POST", `/table/${bulk.tableId}/rows`, { token: tokens.next(), body: { rows } });
      }
    });
    const csvText = "Name,Text,Number,Done,When\r\n" + Array.from({ length: total }, (_, i) => csvLine(i)).join("");
    const importRun = await time(() =>
      api.call("POST", `/table/${imported.tableId}/import`, { token: u.token, raw: csvText, headers: { "content-type": "text/csv" } }),
    );
    const result = importRun.out.data;
    if (result.imported !== total || result.failed !== 0) throw new Error(`import wrote ${result.imported} of ${total} (failed ${result.failed}): ${JSON.stringify(result.errors.slice(0, 3))}`);
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
              const res = await api.call("GET", `/table/${imported.tableId}/rows?limit=1000${cursor ? `&cursor=${cursor}` : ""}`, { token: tokens.next() });
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
      { side: `bulk API POST /table/{id}/rows (${calls} calls × ${ROWS_PER_CALL})`, ms: bulkRun.ms.toFixed(0), rowsPerSec: rps(bulkRun.ms) },
      { side: "CSV POST /table/{id}/import (1 call)", ms: importRun.ms.toFixed(0), rowsPerSec: rps(importRun.ms) },
    ]);
    printTable(`Export: ${total} rows, median of ${passes} passes (${(exported.bytes / 1024 / 1024).toFixed(1)} MiB of CSV)`, [
      { side: "listing GET /table/{id}/rows (pages of 1000)", ms: list.toFixed(0), rowsPerSec: rps(list) },
      { side: "CSV GET /table/{id}/export.csv (streamed)", ms: exp.toFixed(0), rowsPerSec: rps(exp) },
    ]);
    const importRatio = bulkRun.ms / importRun.ms;
    const exportRatio = exp / list;
    console.log(
      `ratios: import throughput ${importRatio.toFixed(2)}× the bulk API (target ≥ 0.7×: ${importRatio >= 0.7 ? "met" : "NOT met"}), ` +
        `export time ${exportRatio.toFixed(2)}× the listing (target ≤ 2×: ${exportRatio <= 2 ? "met" : "NOT met"})`,
    );
  } finally {
    await api.stop();
  }
}
