// npm run bench -- formula-bounds [--top N] [--timeout MS] [--only NAME,NAME]: evaluates every function of the
// formula catalogue (src/services/formula/functions.ts) at growing arguments and prints the slowest ones, with
// the time and the stored size of one cell at each argument size. It is how the argument bounds of
// docs/api-guide.md ("Resource bounds") were found, and how they are checked: after the bounds, no function
// should pass the per-cell budget at any size.
//
// Each function is evaluated the way a cell is (the evaluator's `evaluateCell` when it exists, so the argument
// bounds and the per-cell budget count), from a few base argument vectors that give a non-error result; then one
// argument, every pair of arguments, and all numeric arguments at once grow through 10, 100, 1e3, 1e4, 1e6, 1e9.
// Evaluation runs in a worker thread with a capped heap and a watchdog, so a function that loops for minutes or
// exhausts memory (MUNIT(20000) did) is reported as a timeout or crash and the run goes on.
import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";

const SIZES = [10, 100, 1e3, 1e4, 1e6, 1e9];
/** Array arguments grow to 1e5 elements (past the evaluator's array cap, which answers before any library call). */
const ARRAY_SIZES = [10, 100, 1e3, 1e4, 1e5];
const BASES = [[1], [0.5], [2], [10, 0.5, 0.5], [3, 2, 1], [100, 10, 5, 1, 1]];
const HEAP_MB = 512;

if (!isMainThread) {
  // ---- worker: evaluates one task at a time ----------------------------------------------------------------
  const mod = await import(workerData.bundle);
  // --units: no per-cell budget, so every call runs to its end and reports the work it was charged.
  if (workerData.unlimited && mod.formulaLimits)
    Object.assign(mod.formulaLimits, {
      cellMs: Infinity,
      cellUnits: 1e15,
      cellBytes: Infinity,
      arrayElements: Infinity,
    });
  const evaluateCell = mod.evaluateCellText
    ? (f, get) => {
        const r = mod.evaluateCellText(f, get);
        lastUnits = r.units;
        return r.text === null ? null : JSON.parse(r.text);
      }
    : (f, get) => mod.valueToCell(f(get));
  let lastUnits;
  const lit = (value) => ({ kind: "literal", value });
  parentPort.on("message", ({ name, args }) => {
    // An argument { array: N } is a column read yielding N numbers (as LOOKUP or a multiSelect does).
    const arrays = new Map();
    const expr = {
      kind: "call",
      fn: name,
      args: args.map((a, i) => {
        if (a === null || typeof a !== "object") return lit(a);
        arrays.set(
          `a${i}`,
          Array.from({ length: a.array }, (_, k) => (k % 97) + 1),
        );
        return { kind: "column", columnId: `a${i}` };
      }),
    };
    const get = (id) => arrays.get(id) ?? null;
    const compiled = mod.compileFormula(expr);
    const t0 = performance.now();
    let cell;
    try {
      cell = evaluateCell(compiled, get);
    } catch (err) {
      cell = { thrown: String(err?.message ?? err).slice(0, 60) };
    }
    const ms = performance.now() - t0;
    const text = JSON.stringify(cell) ?? "null";
    parentPort.postMessage({
      ms,
      units: lastUnits,
      bytes: text.length,
      error: cell && typeof cell === "object" && !Array.isArray(cell) ? (cell.error ?? cell.thrown) : undefined,
    });
  });
} else {
  // nothing at import time on the main thread: bench.mjs calls the default export
}

async function bundle(root) {
  const { build } = await import("esbuild");
  const ROOT = root ?? (await import("../lib/proc.mjs")).ROOT;
  const { existsSync } = await import("node:fs");
  const limits = existsSync(path.join(ROOT, "src/services/formula/limits.ts"))
    ? `export { formulaLimits } from "./src/services/formula/limits";`
    : "";
  const out = await build({
    stdin: {
      contents: `export * from "./src/services/formula/evaluate"; export { valueToCell } from "./src/services/formula/values"; export { FUNCTION_CATALOG } from "./src/services/formula/functions"; ${limits}`,
      resolveDir: ROOT,
      loader: "ts",
    },
    bundle: true,
    format: "esm",
    platform: "neutral",
    mainFields: ["module", "main"],
    write: false,
    logLevel: "error",
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), "formula-bounds-"));
  const file = path.join(dir, "formula.mjs");
  writeFileSync(file, out.outputFiles[0].text);
  return file;
}

/** A worker that answers one task at a time; a task past the timeout (or a crash) restarts it. */
class Runner {
  constructor(bundleFile, timeoutMs, unlimited) {
    this.bundleFile = bundleFile;
    this.unlimited = unlimited;
    this.timeoutMs = timeoutMs;
    this.worker = null;
  }
  spawn() {
    this.worker = new Worker(new URL(import.meta.url), {
      workerData: { bundle: this.bundleFile, unlimited: this.unlimited },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_MB },
    });
    this.worker.unref();
  }
  run(name, args) {
    if (!this.worker) this.spawn();
    const w = this.worker;
    return new Promise((resolve) => {
      const done = (r) => {
        clearTimeout(timer);
        w.off("message", onMessage);
        w.off("error", onError);
        w.off("exit", onExit);
        resolve(r);
      };
      const restart = () => {
        this.worker = null;
        w.terminate().catch(() => {});
      };
      const onMessage = (m) => done(m);
      const onError = (err) => {
        restart();
        done({ ms: Infinity, crash: /heap|memory/i.test(String(err)) ? "heap" : String(err).slice(0, 40) });
      };
      const onExit = () => {
        restart();
        done({ ms: Infinity, crash: "exit" });
      };
      const timer = setTimeout(() => {
        restart();
        done({ ms: Infinity, timeout: true });
      }, this.timeoutMs);
      w.on("message", onMessage);
      w.on("error", onError);
      w.on("exit", onExit);
      w.postMessage({ name, args });
    });
  }
}

function baseVector(base, n) {
  return Array.from({ length: n }, (_, i) => base[Math.min(i, base.length - 1)]);
}

/** Patterns of argument positions that grow together: each one, each pair, and all of them. */
function patterns(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ grow: [i] });
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) out.push({ grow: [i, j] });
  if (n > 2) out.push({ grow: Array.from({ length: n }, (_, i) => i) });
  // the same with lists of N numbers in place of numbers
  for (let i = 0; i < n; i++) out.push({ grow: [i], array: true });
  if (n > 1) out.push({ grow: Array.from({ length: n }, (_, i) => i), array: true });
  return out;
}

const fmt = (r) =>
  r === undefined
    ? ""
    : r.timeout
      ? "timeout"
      : r.crash
        ? `crash(${r.crash})`
        : `${r.ms < 10 ? r.ms.toFixed(2) : Math.round(r.ms)}${r.error ? ` ${r.error}` : r.bytes > 1000 ? ` ${Math.round(r.bytes / 1000)}KB` : ""}`;

export default async function (argv = []) {
  const opt = (name, dflt) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : dflt;
  };
  const top = Number(opt("top", 25));
  const timeoutMs = Number(opt("timeout", 3000));
  const only = opt("only", "")
    ? new Set(
        opt("only", "")
          .split(",")
          .map((s) => s.toUpperCase()),
      )
    : null;
  // --root DIR measures another checkout's evaluator (e.g. `git archive <commit> src` unpacked, for a before/after table).
  const bundleFile = await bundle(opt("root", undefined));
  const { FUNCTION_CATALOG } = await import(bundleFile);
  const unlimited = argv.includes("--units");
  const runner = new Runner(bundleFile, timeoutMs, unlimited);
  const skip = new Set(["NOW", "TODAY", "RAND", "RANDBETWEEN", "RANDARRAY"]); // nondeterministic, no size argument of their own
  const worst = [];
  const started = performance.now();
  let tasks = 0;
  for (const spec of FUNCTION_CATALOG.values()) {
    if (skip.has(spec.name) || (only && !only.has(spec.name))) continue;
    const n = Math.min(spec.max === Infinity ? Math.max(spec.min, 1) : spec.max, 6);
    if (n === 0) continue;
    // Base vectors that give a value (not an error), else the first one.
    const bases = [];
    for (const b of BASES) {
      const args = baseVector(b, n);
      const r = await runner.run(spec.name, args);
      tasks += 1;
      if (!r.error && !r.timeout && !r.crash) bases.push(args);
    }
    if (bases.length === 0) bases.push(baseVector(BASES[0], n));
    let fnWorst = null;
    // The same argument vector (bases differ only in the arguments that do not grow) is evaluated once.
    const seen = new Map();
    for (const base of bases.slice(0, 3)) {
      for (const { grow, array } of patterns(n)) {
        const row = { results: [] };
        for (const size of array ? ARRAY_SIZES : SIZES) {
          const args = base.map((v, i) => (grow.includes(i) ? (array ? { array: size } : size) : v));
          const key = JSON.stringify(args);
          let r = seen.get(key);
          if (!r) {
            r = await runner.run(spec.name, args);
            tasks += 1;
            // A slow answer is measured again and the fastest kept: on a shared machine one run can include a
            // pause of the process or a garbage collection that is not the function's.
            for (let k = 0; k < 2 && r.ms > 5 && Number.isFinite(r.ms); k++) {
              const again = await runner.run(spec.name, args);
              tasks += 1;
              if (again.ms < r.ms) r = again;
            }
            seen.set(key, r);
          }
          row.results.push(r);
          if (r.timeout || r.crash || r.ms > timeoutMs / 3) break;
        }
        const peak = Math.max(...row.results.map((r) => r.ms));
        const peakBytes = Math.max(...row.results.map((r) => r.bytes ?? 0));
        if (!fnWorst || peak > fnWorst.peak || (peak === fnWorst.peak && peakBytes > fnWorst.peakBytes)) {
          fnWorst = { name: spec.name, peak, peakBytes, base, grow, array, results: row.results };
        }
      }
    }
    if (fnWorst) worst.push(fnWorst);
    if (worst.length % 50 === 0)
      process.stderr.write(
        `  ${worst.length} functions measured (${((performance.now() - started) / 1000).toFixed(0)} s)\n`,
      );
  }
  await runner.worker?.terminate();
  worst.sort((a, b) => b.peak - a.peak || b.peakBytes - a.peakBytes);
  const label = (w) =>
    `${w.name}(${w.base.map((v, i) => (w.grow.includes(i) ? (w.array ? "[N]" : "N") : v)).join(", ")})`;
  const sizeName = (s) => s.toExponential().replace("e+", "e");
  const rows = worst
    .slice(0, top)
    .map((w) =>
      Object.fromEntries([
        ["call", label(w)],
        ...SIZES.map((s, i) => [
          `N=${sizeName(s)} ([N]=${sizeName(ARRAY_SIZES[i] ?? ARRAY_SIZES.at(-1))})`,
          i < (w.array ? ARRAY_SIZES : SIZES).length ? fmt(w.results[i]) : "",
        ]),
      ]),
    );
  console.log(
    `\n${worst.length} functions, ${tasks} evaluations in ${((performance.now() - started) / 1000).toFixed(0)} s; watchdog ${timeoutMs} ms, heap ${HEAP_MB} MB per worker.`,
  );
  console.log(
    `Slowest ${top} functions: one cell's time in ms (fastest of 3 when over 5 ms) at each N (with its error value, or its stored size past 1 KB); the worst growth pattern of each function.`,
  );
  console.table(rows);
  const oversize = worst
    .filter((w) => w.peakBytes > 100_000)
    .map((w) => `${label(w)} ${Math.round(w.peakBytes / 1000)} KB`);
  if (oversize.length) console.log(`Results past 100 KB: ${oversize.join("; ")}`);
  if (unlimited) {
    // Where the clock stands still while code runs (Workers), the count of work is what stops a cell: a call
    // whose time is far above its units times the typical cost of a unit escapes it, and needs a cost estimate.
    const samples = [];
    for (const w of worst)
      for (const r of w.results)
        if (r.units > 0 && Number.isFinite(r.ms) && r.ms > 0.5) samples.push({ w, r, ns: (r.ms * 1e6) / r.units });
    samples.sort((a, b) => b.ns - a.ns);
    const seenFn = new Set();
    const rowsNs = [];
    for (const { w, r, ns } of samples) {
      if (seenFn.has(w.name)) continue;
      seenFn.add(w.name);
      rowsNs.push({ call: label(w), ms: r.ms.toFixed(1), units: r.units, "ns per unit": Math.round(ns) });
      if (rowsNs.length >= top) break;
    }
    console.log("\nCalls over 0.5 ms by time per work unit (the budget's count of work assumes about 25 ns per unit):");
    console.table(rowsNs);
  }
}
