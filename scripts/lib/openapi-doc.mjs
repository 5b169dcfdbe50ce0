// The OpenAPI document exactly as the Worker serves it, built in Node without starting wrangler: src/app.ts is
// bundled with esbuild (Workers-only modules stubbed, since building the document never runs them) and asked for
// GET /openapi.json through app.request.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { ROOT } from "./proc.mjs";

const stubWorkersModules = {
  name: "stub-workers-modules",
  setup(b) {
    b.onResolve({ filter: /^cloudflare:/ }, (args) => ({ path: args.path, namespace: "stub" }));
    b.onLoad({ filter: /.*/, namespace: "stub" }, () => ({
      contents: "export class DurableObject {}; export class WorkerEntrypoint {}; export const env = {};",
      loader: "js",
    }));
  },
};

/** Builds the served document; `origin` plays the host the request came to. */
export async function servedDocument(origin = "http://127.0.0.1:8787") {
  const dir = mkdtempSync(path.join(os.tmpdir(), "openapi-doc-"));
  try {
    const out = path.join(dir, "app.mjs");
    await build({
      entryPoints: [path.join(ROOT, "src", "app.ts")],
      bundle: true,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: ["workerd", "worker", "import", "default"],
      outfile: out,
      logLevel: "error",
      plugins: [stubWorkersModules],
      external: ["node:*"],
    });
    const { buildApp } = await import(pathToFileURL(out).href);
    const env = { DB: { withSession: () => ({ getBookmark: () => null, prepare() {}, batch() {} }) } };
    const res = await buildApp().request(`${origin}/openapi.json`, {}, env, {
      waitUntil() {},
      passThroughOnException() {},
    });
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
    return await res.json();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Writes the document to a temporary file and returns its path (and a cleanup). The file lies inside the
 * repository (.wrangler/, ignored by git) because Spectral matches `overrides` paths relative to its ruleset.
 */
export async function writeServedDocument() {
  const doc = await servedDocument();
  const parent = path.join(ROOT, ".wrangler", "tmp");
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(path.join(parent, "openapi-lint-"));
  const file = path.join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify(doc, null, 2));
  return { file, doc, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
