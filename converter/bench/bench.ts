// Benchmark: cold `soffice --convert-to pdf` per file vs the warm converter pool.
//   node converter/bench/bench.ts            (env BENCH_COLD_RUNS, BENCH_WARM_RUNS, BENCH_THROUGHPUT_N)
// The functions are exported so the repository-level benchmark can reuse them.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startConverter } from "../src/server.ts";
import { buildDocx } from "../test/fixtures.ts";

export interface Stats {
  runs: number;
  p50: number;
  min: number;
  max: number;
  mean: number;
}

export function stats(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const p50 = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return {
    runs: sorted.length,
    p50,
    min: sorted[0]!,
    max: sorted[sorted.length - 1]!,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** (a) One new `soffice --headless --convert-to pdf` process per file, each with a fresh profile. Milliseconds. */
export async function benchColdSoffice(
  docx: Uint8Array,
  runs: number,
  soffice = process.env.CONVERTER_SOFFICE || "soffice",
): Promise<Stats> {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const dir = await mkdtemp(join(tmpdir(), "bench-cold-"));
    try {
      const input = join(dir, "input.docx");
      await writeFile(input, docx);
      const started = performance.now();
      await new Promise<void>((resolve, reject) => {
        const child = spawn(
          soffice,
          [
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nolockcheck",
            `-env:UserInstallation=${pathToFileURL(join(dir, "profile")).href}`,
            "--convert-to",
            "pdf",
            "--outdir",
            dir,
            input,
          ],
          { stdio: "ignore" },
        );
        child.on("error", reject);
        child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`soffice exited with ${code}`))));
      });
      samples.push(performance.now() - started);
      if (!existsSync(join(dir, "input.pdf"))) throw new Error("soffice produced no PDF");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return stats(samples);
}

async function convertOnce(url: string, docx: Uint8Array, secret?: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/convert`, {
    method: "POST",
    headers: secret ? { "x-converter-secret": secret } : {},
    body: docx,
  });
  const body = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`converter answered ${res.status}: ${new TextDecoder().decode(body)}`);
  return performance.now() - started;
}

/** (b) Sequential requests to a running converter over HTTP (after one warm-up request). Milliseconds. */
export async function benchConverterHttp(url: string, docx: Uint8Array, runs: number, secret?: string): Promise<Stats> {
  await convertOnce(url, docx, secret);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) samples.push(await convertOnce(url, docx, secret));
  return stats(samples);
}

export interface Throughput {
  poolSize: number;
  conversions: number;
  wallMs: number;
  perSecond: number;
}

/** Starts an in-process converter with `poolSize` offices and converts `count` copies of `docx` concurrently. */
export async function benchThroughput(poolSize: number, count: number, docx: Uint8Array): Promise<Throughput> {
  const converter = await startConverter({
    poolSize,
    port: 0,
    host: "127.0.0.1",
    log: false,
    env: {},
    queueLimit: count,
  });
  try {
    // wait until every office is warm, then one warm-up conversion per office
    const deadline = Date.now() + 60_000;
    while (!converter.pool.slots.every((s) => s.state === "idle") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all(Array.from({ length: poolSize }, () => convertOnce(converter.url, docx)));
    const started = performance.now();
    await Promise.all(Array.from({ length: count }, () => convertOnce(converter.url, docx)));
    const wallMs = performance.now() - started;
    return { poolSize, conversions: count, wallMs, perSecond: (count * 1000) / wallMs };
  } finally {
    await converter.close();
  }
}

export interface BenchResult {
  cold: { onePage: Stats; fortyPages: Stats };
  warm: { onePage: Stats; fortyPages: Stats };
  throughput: { pool1: Throughput; pool2: Throughput };
  ratios: { onePageColdOverWarm: number; fortyPagesColdOverWarm: number; pool2OverPool1: number };
}

export async function runBench(
  options: { coldRuns?: number; warmRuns?: number; throughputCount?: number; print?: boolean } = {},
): Promise<BenchResult> {
  const coldRuns = options.coldRuns ?? 5;
  const warmRuns = options.warmRuns ?? 15;
  const count = options.throughputCount ?? 8;
  const print = options.print ?? true;
  const say = (line: string) => print && console.log(line);
  const onePage = buildDocx({ withHeading: true });
  const fortyPages = buildDocx({ pages: 40, withHeading: true, withTable: true });

  say(`cold soffice --convert-to pdf (fresh profile each), ${coldRuns} runs per document ...`);
  const cold = {
    onePage: await benchColdSoffice(onePage, coldRuns),
    fortyPages: await benchColdSoffice(fortyPages, coldRuns),
  };

  say(`warm converter over HTTP (pool 2), ${warmRuns} runs per document ...`);
  const converter = await startConverter({ poolSize: 2, port: 0, host: "127.0.0.1", log: false, env: {} });
  let warm: BenchResult["warm"];
  try {
    warm = {
      onePage: await benchConverterHttp(converter.url, onePage, warmRuns),
      fortyPages: await benchConverterHttp(converter.url, fortyPages, warmRuns),
    };
  } finally {
    await converter.close();
  }

  say(`throughput: ${count} concurrent 1-page conversions, pool 1 vs pool 2 ...`);
  const throughput = {
    pool1: await benchThroughput(1, count, onePage),
    pool2: await benchThroughput(2, count, onePage),
  };

  const ratios = {
    onePageColdOverWarm: cold.onePage.p50 / warm.onePage.p50,
    fortyPagesColdOverWarm: cold.fortyPages.p50 / warm.fortyPages.p50,
    pool2OverPool1: throughput.pool2.perSecond / throughput.pool1.perSecond,
  };
  const ms = (n: number) => `${n.toFixed(0)} ms`;
  say("");
  say("document   | cold soffice p50 | converter HTTP p50 | speed-up");
  say("-----------|------------------|--------------------|---------");
  say(
    `1 page     | ${ms(cold.onePage.p50).padStart(16)} | ${ms(warm.onePage.p50).padStart(18)} | ${ratios.onePageColdOverWarm.toFixed(1)}x`,
  );
  say(
    `40 pages   | ${ms(cold.fortyPages.p50).padStart(16)} | ${ms(warm.fortyPages.p50).padStart(18)} | ${ratios.fortyPagesColdOverWarm.toFixed(1)}x`,
  );
  say("");
  for (const t of [throughput.pool1, throughput.pool2]) {
    say(
      `pool ${t.poolSize}: ${t.conversions} conversions in ${ms(t.wallMs)} = ${t.perSecond.toFixed(2)} conversions/s`,
    );
  }
  say(`pool 2 / pool 1 throughput: ${ratios.pool2OverPool1.toFixed(2)}x`);
  return { cold, warm, throughput, ratios };
}

if (import.meta.main) {
  const num = (name: string) => (process.env[name] ? Number(process.env[name]) : undefined);
  const result = await runBench({
    coldRuns: num("BENCH_COLD_RUNS"),
    warmRuns: num("BENCH_WARM_RUNS"),
    throughputCount: num("BENCH_THROUGHPUT_N"),
  });
  if (process.env.BENCH_JSON) console.log(JSON.stringify(result, null, 2));
}
