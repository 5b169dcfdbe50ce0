// End-to-end tests against real LibreOffice processes (no mocks).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { PDFDocument } from "pdf-lib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { singleOfficePipeName } from "../src/office.ts";
import type { RunningConverter } from "../src/server.ts";
import { buildDocx, buildDocxWithBrokenXml, buildRandomBytes, buildZipWithoutDocument } from "./fixtures.ts";
import { getHealth, isAlive, postConvert, startTestConverter, waitFor } from "./helpers.ts";

const SECRET = "test-secret-value";
const AUTH = { "x-converter-secret": SECRET };
const tmpRoot = mkdtempSync(join(tmpdir(), "converter-test-"));
const onePage = buildDocx({ withHeading: true });
const fortyPages = buildDocx({ pages: 40, withHeading: true, withTable: true });
const seenOfficePids = new Set<number>();
const runDirs = new Set<string>();

function rememberRunDirs(): void {
  for (const run of readdirSync(tmpRoot)) runDirs.add(join(tmpRoot, run));
}

/** Named pipes our offices may have created: the UNO accept pipes and LibreOffice's single-instance pipes. */
function ourOfficePipes(): string[] {
  const names = new Set<string>();
  for (const run of runDirs) {
    for (let slot = 1; slot <= 2; slot++) {
      for (let gen = 1; gen <= 20; gen++) {
        names.add(singleOfficePipeName(pathToFileURL(join(run, "profiles", `slot${slot}-gen${gen}`)).href));
      }
    }
  }
  return readdirSync("/tmp").filter(
    (f) =>
      f.startsWith("OSL_PIPE_") &&
      (f.includes(`converter-${process.pid}-`) || names.has(f.replace(/^OSL_PIPE_\d+_/, ""))),
  );
}

async function pageCount(pdf: Uint8Array): Promise<number> {
  return (await PDFDocument.load(pdf)).getPageCount();
}

/** Every per-run jobs/ dir under tmpRoot must be empty once requests have finished. */
function leftoverJobFiles(): string[] {
  const left: string[] = [];
  for (const run of readdirSync(tmpRoot)) {
    for (const entry of readdirSync(join(tmpRoot, run, "jobs"))) left.push(join(run, "jobs", entry));
  }
  return left;
}

describe("converter with a pool of 2", () => {
  let conv: RunningConverter & { logs: string[] };

  beforeAll(async () => {
    conv = await startTestConverter({ poolSize: 2, secret: SECRET, tmpDir: tmpRoot, maxBodyBytes: 1024 * 1024 });
    rememberRunDirs();
  });
  afterAll(async () => {
    await conv?.close();
  });

  it("reports each office process in /health", async () => {
    const health = await waitFor(async () => {
      const h = await getHealth(conv.url);
      return h.pool.every((s) => s.state === "idle") && h;
    });
    expect(health.status).toBe("ok");
    expect(health.httpStatus).toBe(200);
    expect(health.ready).toBe(true);
    expect(health.queued).toBe(0);
    expect(health.pool).toHaveLength(2);
    for (const slot of health.pool) {
      expect(slot).toMatchObject({ state: "idle", conversions: 0 });
      expect(slot.pid).toBeGreaterThan(0);
      expect(isAlive(slot.pid!)).toBe(true);
      seenOfficePids.add(slot.pid!);
    }
    expect(new Set(health.pool.map((s) => s.id)).size).toBe(2);
    // sanity check of the leak detector used at the end: both offices' pipes are visible now
    expect(ourOfficePipes().filter((f) => f.includes("SingleOfficeIPC_"))).toHaveLength(2);
    expect(ourOfficePipes().filter((f) => f.includes("_converter-"))).toHaveLength(2);
  });

  it("converts a multi-page DOCX with a heading and a table to PDF", async () => {
    const res = await postConvert(conv.url, fortyPages, AUTH);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    const pages = await pageCount(res.body);
    expect(pages).toBeGreaterThan(1);
    expect(Math.abs(pages - 40)).toBeLessThanOrEqual(2);

    const single = await postConvert(conv.url, onePage, AUTH);
    expect(single.status).toBe(200);
    expect(await pageCount(single.body)).toBe(1);
    expect(leftoverJobFiles()).toEqual([]);
  });

  it("answers 401 for a missing or wrong secret", async () => {
    const variants: Array<Record<string, string>> = [
      {},
      { "x-converter-secret": "wrong" },
      { "x-converter-secret": `${SECRET}x` },
    ];
    for (const headers of variants) {
      const res = await postConvert(conv.url, onePage, headers);
      expect(res.status).toBe(401);
      expect(res.json).toMatchObject({ error: "UnauthorizedError" });
      expect(res.json?.message).toMatch(/x-converter-secret/);
    }
    // /health needs no secret
    expect((await fetch(`${conv.url}/health`)).status).toBe(200);
  });

  it("answers 422 with a clear message for corrupt input", async () => {
    const cases: Array<[string, Uint8Array, RegExp]> = [
      ["random bytes", buildRandomBytes(8192), /not a ZIP archive/],
      ["zip without word/document.xml", buildZipWithoutDocument(), /word\/document\.xml/],
      ["broken document.xml", buildDocxWithBrokenXml(), /could not read the document/],
      ["truncated docx", onePage.subarray(0, 1200), /truncated or corrupt/],
      ["empty body", new Uint8Array(0), /empty/],
    ];
    for (const [name, bytes, message] of cases) {
      const res = await postConvert(conv.url, bytes, AUTH);
      expect(res.status, name).toBe(422);
      expect(res.json, name).toMatchObject({ error: "UnprocessableEntityError" });
      expect(res.json?.message, name).toMatch(message);
    }
    // the office processes are still fine afterwards
    expect((await postConvert(conv.url, onePage, AUTH)).status).toBe(200);
  });

  it("answers 413 for a body over the size limit", async () => {
    const res = await postConvert(conv.url, buildRandomBytes(1024 * 1024 + 1), AUTH);
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ error: "PayloadTooLargeError" });
  });

  it("answers JSON 404/405 for other routes", async () => {
    const notFound = await fetch(`${conv.url}/nope`);
    expect(notFound.status).toBe(404);
    expect(await notFound.json()).toMatchObject({ error: "NotFoundError" });
    const wrongMethod = await fetch(`${conv.url}/convert`, { headers: AUTH });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({ error: "MethodNotAllowedError" });
  });

  it("serves 8 concurrent requests with 2 office processes", async () => {
    const started = performance.now();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postConvert(conv.url, i % 2 ? fortyPages : onePage, AUTH)),
    );
    const elapsed = performance.now() - started;
    for (const [i, res] of results.entries()) {
      expect(res.status, `request ${i}`).toBe(200);
      expect(res.body.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    }
    expect(new Set(results.map((r) => r.headers.get("x-converter-slot")))).toEqual(new Set(["1", "2"]));
    expect(elapsed).toBeLessThan(30_000);
    const health = await getHealth(conv.url);
    expect(health.queued).toBe(0);
    expect(leftoverJobFiles()).toEqual([]);
  });

  it("fails the in-flight request with 503 when its office process is killed, and keeps serving", async () => {
    const huge = buildDocx({ pages: 1500 });
    const pending = postConvert(conv.url, huge, AUTH);
    const busy = await waitFor(
      async () => (await getHealth(conv.url)).pool.find((s) => s.state === "busy" && s.pid),
      10_000,
      20,
    );
    const victim = busy.pid!;
    await new Promise((r) => setTimeout(r, 300)); // let it get into the conversion
    process.kill(victim, "SIGKILL");

    const failed = await pending;
    expect(failed.status).toBe(503);
    expect(failed.json).toMatchObject({ error: "ServiceUnavailableError", code: "OFFICE_CRASHED" });

    const next = await postConvert(conv.url, onePage, AUTH);
    expect(next.status).toBe(200);
    expect(next.ms).toBeLessThan(3000);

    // the killed slot comes back with a new office process, off the request path
    const health = await waitFor(async () => {
      const h = await getHealth(conv.url);
      const slot = h.pool.find((s) => s.id === busy.id)!;
      return slot.state === "idle" && slot.restarts >= 1 && h;
    }, 30_000);
    const restarted = health.pool.find((s) => s.id === busy.id)!;
    expect(restarted.pid).not.toBe(victim);
    await waitFor(() => !isAlive(victim) && !isAlive(busy.helperPid!), 2000);
    expect(health.status).toBe("ok");
    expect((await postConvert(conv.url, fortyPages, AUTH)).status).toBe(200);
    for (const s of health.pool) if (s.pid) seenOfficePids.add(s.pid);
    expect(leftoverJobFiles()).toEqual([]);
  });
});

describe("converter with a pool of 1, a queue of 1 and a short timeout", () => {
  let conv: RunningConverter & { logs: string[] };

  beforeAll(async () => {
    conv = await startTestConverter({
      poolSize: 1,
      queueLimit: 1,
      timeoutMs: 2500,
      timeoutPerMiBMs: 0,
      maxConversions: 4,
      tmpDir: tmpRoot,
    });
    rememberRunDirs();
  });
  afterAll(async () => {
    await conv?.close();
  });

  it("answers 503 with Retry-After when the queue is full", async () => {
    const results = await Promise.all([0, 1, 2].map(() => postConvert(conv.url, fortyPages)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 503]);
    const rejected = results.find((r) => r.status === 503)!;
    expect(rejected.json).toMatchObject({ error: "ServiceUnavailableError", code: "QUEUE_FULL" });
    expect(Number(rejected.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(rejected.ms).toBeLessThan(1000); // rejected at once, not after waiting
  });

  it("recycles the office process after CONVERTER_MAX_CONVERSIONS conversions", async () => {
    const before = (await getHealth(conv.url)).pool[0]!;
    expect(before.conversions).toBe(2);
    for (let i = before.conversions; i < 4; i++) expect((await postConvert(conv.url, onePage)).status).toBe(200);
    const recyclingHealth = await getHealth(conv.url);
    const recycling = recyclingHealth.pool[0]!;
    expect(recycling.state).toBe("restarting");
    expect(recycling.restarts).toBe(1);
    // no office can take work right now: /health says so with 503 (readiness probe semantics)
    expect(recyclingHealth).toMatchObject({
      httpStatus: 503,
      ready: false,
      status: "degraded",
      error: "ServiceUnavailableError",
    });
    // a request arriving during the restart waits for the fresh process instead of failing
    const res = await postConvert(conv.url, onePage);
    expect(res.status).toBe(200);
    const afterHealth = await getHealth(conv.url);
    expect(afterHealth).toMatchObject({ httpStatus: 200, ready: true, status: "ok" });
    const after = afterHealth.pool[0]!;
    expect(after.pid).not.toBe(before.pid);
    expect(after.conversions).toBe(1);
    await waitFor(() => !isAlive(before.pid!) && !isAlive(before.helperPid!), 2000);
  });

  it("answers 503 when a conversion exceeds the timeout, then recovers", async () => {
    const slow = buildDocx({ pages: 3000 });
    const before = (await getHealth(conv.url)).pool[0]!;
    const res = await postConvert(conv.url, slow);
    expect(res.status).toBe(503);
    expect(res.json).toMatchObject({ error: "ServiceUnavailableError", code: "CONVERSION_TIMEOUT" });
    expect(res.ms).toBeGreaterThanOrEqual(2400);
    expect(res.ms).toBeLessThan(6000);
    // office + helper were killed, the slot restarts outside the request path
    await waitFor(() => !isAlive(before.pid!) && !isAlive(before.helperPid!), 2000);
    const next = await postConvert(conv.url, onePage);
    expect(next.status).toBe(200);
    expect(await pageCount(next.body)).toBe(1);
    const health = await getHealth(conv.url);
    expect(health.pool[0]).toMatchObject({ state: "idle", restarts: before.restarts + 1 });
    expect(health.pool[0]!.lastError).toMatch(/timed out/);
    seenOfficePids.add(health.pool[0]!.pid!);
  });
});

describe("cleanup", () => {
  it("leaves no temp files, pipes or office processes behind", async () => {
    expect(readdirSync(tmpRoot)).toEqual([]);
    expect(runDirs.size).toBe(2);
    expect(ourOfficePipes()).toEqual([]);
    // soffice.bin is a grandchild killed with its process group; on a loaded machine it can take a moment
    // after the SIGKILL to be gone, so give it a few seconds before calling it a leak.
    const deadline = Date.now() + 5000;
    let alive = [...seenOfficePids].filter(isAlive);
    while (alive.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      alive = alive.filter(isAlive);
    }
    expect(alive, "office processes still running").toEqual([]);
    rmSync(tmpRoot, { recursive: true, force: true });
  });
});
