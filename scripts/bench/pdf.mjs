// npm run bench -- pdf: E6 end to end beside (a) one new `soffice --convert-to pdf` per file and (b) the
// converter called directly, same documents, same run; then throughput with 1 vs 2 office processes.
import { median, printTable, seedUser, startApi, time } from "./lib.mjs";

export default async function () {
  const { startConverter } = await import("../../converter/src/index.ts");
  const { benchColdSoffice, benchConverterHttp, benchThroughput } = await import("../../converter/bench/bench.ts");
  const { buildDocx } = await import("../../converter/test/fixtures.ts");
  const coldRuns = Number(process.env.BENCH_COLD_RUNS || 5);
  const warmRuns = Number(process.env.BENCH_WARM_RUNS || 15);

  const secret = "bench-converter-secret";
  const converter = await startConverter({ poolSize: 2, port: 0, host: "127.0.0.1", secret, log: false, env: {} });
  const api = await startApi({ vars: { CONVERTER_URL: converter.url, CONVERTER_SECRET: secret } });
  const rows = [];
  try {
    const u = await seedUser(api);
    const doc = await api.call("POST", "/document", {
      token: u.token,
      body: { projectId: u.projectId, name: "PDF", type: "DOCUMENT" },
    });
    const documents = {
      "1 page": buildDocx({ withHeading: true }),
      "40 pages": buildDocx({ pages: 40, withHeading: true, withTable: true }),
    };
    for (const [label, docx] of Object.entries(documents)) {
      const body = { data: [{ documentId: doc.data._id, docx: Buffer.from(docx).toString("base64") }] };
      const e6 = async () => (await time(() => api.call("POST", "/export/doc-to-pdf", { token: u.token, body }))).ms;
      await e6(); // warm-up
      const e6Samples = [];
      for (let i = 0; i < warmRuns; i++) e6Samples.push(await e6());
      const direct = await benchConverterHttp(converter.url, docx, warmRuns, secret);
      const cold = await benchColdSoffice(docx, coldRuns);
      const e6p50 = median(e6Samples);
      rows.push({
        document: label,
        "E6 p50 ms": e6p50.toFixed(0),
        "(a) soffice per file p50 ms": cold.p50.toFixed(0),
        "(b) converter direct p50 ms": direct.p50.toFixed(0),
        "(a)/E6 (target >= 5)": (cold.p50 / e6p50).toFixed(1),
        "E6/(b) (target <= 1.5)": (e6p50 / direct.p50).toFixed(2),
      });
    }
  } finally {
    api.stop();
    await converter.close();
  }
  printTable("E6 end to end vs a new soffice per file (a) and the converter called directly (b)", rows);

  const count = Number(process.env.BENCH_THROUGHPUT_N || 8);
  const onePage = (await import("../../converter/test/fixtures.ts")).buildDocx({ withHeading: true });
  const pool1 = await benchThroughput(1, count, onePage);
  const pool2 = await benchThroughput(2, count, onePage);
  printTable(`Throughput, ${count} concurrent 1-page conversions`, [
    { office_processes: 1, "conversions/s": pool1.perSecond.toFixed(2) },
    {
      office_processes: 2,
      "conversions/s": pool2.perSecond.toFixed(2),
      "ratio 2/1": (pool2.perSecond / pool1.perSecond).toFixed(2),
    },
  ]);
}
