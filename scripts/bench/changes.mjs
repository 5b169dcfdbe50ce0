// The change log's cost (docs/api-guide.md › Changes, history and audit): the rows bench's writes (1,000-row insert,
// single-cell PUT, 1,000-row bulk PATCH) against two local APIs started in the same run, one writing the change log
// and one with it off (CHANGE_LOG=off, a setting only this bench uses), measured in alternation so both see the same
// machine; the same for document writes (a PATCH of a document's name, a PUT of its content); then a read of 10,000
// entries of the feed (GET /changes, pages of 1,000).
//   npm run bench -- changes        (BENCH_CHANGES_PASSES, BENCH_CHANGES_PUTS override the defaults)
import { median, printTable, seedUser, startApi, time, tokensFor } from "./lib.mjs";

const ROWS = 1000;

function setting(name, fallback) {
  const v = Number(process.env[`BENCH_CHANGES_${name.toUpperCase()}`]);
  return Number.isInteger(v) && v > 0 ? v : fallback;
}

/** A table of 4 columns (identifier, text, number, checkbox) on `api`. */
async function setUp(api) {
  const u = await seedUser(api);
  const table = await api.call("POST", "/table", { token: u.token, body: { projectId: u.projectId, name: "Bench" } });
  const tableId = table.data._id;
  const cols = [table.data.columns[0]._id];
  for (const type of ["text", "number", "checkbox"])
    cols.push(
      (await api.call("POST", `/table/${tableId}/column`, { token: u.token, body: { name: type, data: { type } } }))
        .data._id,
    );
  const doc = await api.call("POST", "/document", {
    token: u.token,
    body: { projectId: u.projectId, name: "Bench", type: "DOCUMENT" },
  });
  const times = { insert: [], put: [], patch: [], docPatch: [], docPut: [] };
  // A pass is ~60 writes: the writes rotate over three users of the workspace, so five passes stay within the
  // per-user rate limit (300 a minute) instead of failing with 429 halfway.
  const { next } = await tokensFor(api, u, 3);
  return { api, token: u.token, next, tableId, cols, documentId: doc.data._id, times, rowIds: [] };
}

const values = (cols, i, k) => ({
  [cols[0]]: `Row ${i}`,
  [cols[1]]: `text ${i} pass ${k}`,
  [cols[2]]: i * k,
  [cols[3]]: (i + k) % 2 === 0,
});

/** One pass of the three writes on one API. */
async function pass(s, k, puts) {
  const body = { rows: Array.from({ length: ROWS }, (_, i) => ({ cells: values(s.cols, i, k) })) };
  const ins = await time(() => s.api.call("POST", `/table/${s.tableId}/rows`, { token: s.next(), body }));
  s.times.insert.push(ins.ms);
  const ids = ins.out.data.rows.map((r) => r._id);
  s.rowIds.push(...ids);
  const one = [];
  for (let p = 0; p < puts; p++) {
    const r = await time(() =>
      s.api.call("PUT", `/table/row/${ids[p]}/cell/${s.cols[2]}`, { token: s.next(), body: { data: 10_000 + p + k } }),
    );
    one.push(r.ms);
  }
  s.times.put.push(median(one));
  const patch = {
    rows: ids.map((id, i) => ({ _id: id, cells: { [s.cols[1]]: `patched ${i} ${k}`, [s.cols[2]]: -i } })),
  };
  s.times.patch.push(
    (await time(() => s.api.call("PATCH", `/table/${s.tableId}/rows`, { token: s.next(), body: patch }))).ms,
  );
  await documentWrites(s, k, puts);
}

/** The document writes of one pass: `n` renames and `n` content PUTs, their medians. */
async function documentWrites(s, k, n) {
  const renames = [];
  const contents = [];
  for (let p = 0; p < n; p++) {
    const body = { name: `Bench ${k}.${p}` };
    renames.push((await time(() => s.api.call("PATCH", `/document/${s.documentId}`, { token: s.next(), body }))).ms);
    const blocks = [{ type: "paragraph", content: [{ type: "text", text: `pass ${k} put ${p}`, styles: {} }] }];
    const put = () => s.api.call("PUT", `/document/${s.documentId}/content`, { token: s.next(), body: { blocks } });
    contents.push((await time(put)).ms);
  }
  s.times.docPatch.push(median(renames));
  s.times.docPut.push(median(contents));
}

/** Every entry of the table's feed from the start, in pages of 1,000: the entries and each page's time. */
async function readFeed(s, want) {
  let cursor;
  let n = 0;
  const pages = [];
  while (n < want) {
    const r = await time(() =>
      s.api.call("GET", `/changes?tableId=${s.tableId}&limit=1000${cursor ? `&cursor=${cursor}` : ""}`, {
        token: s.token,
      }),
    );
    pages.push(r.ms);
    n += r.out.data.length;
    if (r.out.data.length === 0) break;
    cursor = r.out.nextCursor;
  }
  return { n, pages };
}

export default async function () {
  const passes = setting("passes", 5);
  const puts = setting("puts", 20);
  const [on, off] = [await startApi(), await startApi({ vars: { CHANGE_LOG: "off" } })];
  try {
    const withLog = await setUp(on);
    const without = await setUp(off);
    for (let k = 0; k < passes; k++) {
      // Alternating which goes first, so neither always runs on a warmer machine.
      for (const s of k % 2 ? [without, withLog] : [withLog, without]) await pass(s, k + 1, puts);
    }
    const rows = ["insert", "put", "patch", "docPatch", "docPut"].map((w) => {
      const a = median(withLog.times[w]);
      const b = median(without.times[w]);
      return { write: w, msWithLog: a.toFixed(1), msWithout: b.toFixed(1), ratio: (a / b).toFixed(2) };
    });
    printTable(
      `Writes with and without the change log: ${passes} passes of a ${ROWS}-row insert, ${puts} single-cell PUTs (median), a ${ROWS}-row bulk PATCH (median per call), and ${puts} document renames and content PUTs (median)`,
      rows,
    );
    const reads = [];
    let entries = 0;
    const perPage = [];
    for (let r = 0; r < 5; r++) {
      const { n, pages } = await readFeed(withLog, 10_000);
      entries = n;
      reads.push(pages.reduce((a, b) => a + b, 0));
      perPage.push(...pages);
    }
    printTable(`Feed read: ${entries} entries in pages of 1,000, 5 reads`, [
      {
        msWholeRead: median(reads).toFixed(1),
        p50PerPage: median(perPage).toFixed(1),
        maxPerPage: Math.max(...perPage).toFixed(1),
      },
    ]);
  } finally {
    await on.stop();
    await off.stop();
  }
}
