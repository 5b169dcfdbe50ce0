// ZIP bombs against real LibreOffice processes (no mocks): refused before an office sees them, and, when the
// checks are switched off, stopped by each office process's memory limit without taking the pool down.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MiB } from "../src/config.ts";
import type { RunningConverter } from "../src/server.ts";
import { buildDocx, buildDocxBomb } from "./fixtures.ts";
import { getHealth, isAlive, postConvert, startTestConverter, waitFor } from "./helpers.ts";

const onePage = buildDocx({ withHeading: true });

/** Peak resident set (VmHWM) of a live process, in bytes; 0 once it is gone. */
function peakRss(pid: number): number {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
  } catch {
    return 0;
  }
}

describe("ZIP bombs are refused before conversion", () => {
  let conv: RunningConverter & { logs: string[] };
  beforeAll(async () => {
    conv = await startTestConverter({ poolSize: 2 });
    // startConverter resolves once one office is ready; compare the pool only once both are.
    await waitFor(async () => (await getHealth(conv.url)).pool.every((s) => s.state === "idle" && s.pid), 60_000);
  });
  afterAll(async () => {
    await conv?.close();
  });

  it("answers 413 for a DOCX whose document.xml inflates to 650 MB, plain or zip64, and no office process sees it", async () => {
    const before = (await getHealth(conv.url)).pool;
    for (const zip64 of [false, true]) {
      const bomb = buildDocxBomb({ zip64 });
      const results = await Promise.all([0, 1, 2].map(() => postConvert(conv.url, bomb)));
      for (const res of results) {
        expect(res.status).toBe(413);
        expect(res.json).toMatchObject({ error: "PayloadTooLargeError", code: "INFLATED_TOO_LARGE" });
        expect(res.json?.message).toMatch(/word\/document\.xml.*100:1/);
        expect(res.ms).toBeLessThan(5000);
      }
    }
    const after = (await getHealth(conv.url)).pool;
    expect(after.map((s) => [s.pid, s.totalConversions, s.restarts])).toEqual(
      before.map((s) => [s.pid, s.totalConversions, s.restarts]),
    );
  });

  it("answers 422 for an archive whose headers lie about the inflated size", async () => {
    const central = await postConvert(conv.url, buildDocxBomb({ lie: "central" }));
    expect(central.status).toBe(422);
    expect(central.json).toMatchObject({ error: "UnprocessableEntityError", code: "INVALID_DOCX" });
    expect(central.json?.message).toMatch(/disagree on its sizes/);
    for (const zip64 of [false, true]) {
      const both = await postConvert(conv.url, buildDocxBomb({ lie: "both", zip64 }));
      expect(both.status).toBe(422);
      expect(both.json?.message).toMatch(/inflates past the \d+ bytes its headers declare/);
      expect(both.ms).toBeLessThan(5000);
    }
    expect((await getHealth(conv.url)).pool.every((s) => s.totalConversions === 0)).toBe(true);
    expect((await postConvert(conv.url, onePage)).status).toBe(200);
  });
});

describe("a bomb that gets past the checks meets the office's memory limit", () => {
  const limit = 1200 * MiB;
  let conv: RunningConverter & { logs: string[] };
  beforeAll(async () => {
    // The ZIP checks are switched off here, so only the per-process memory limit stands between the bomb and the host.
    conv = await startTestConverter({
      poolSize: 2,
      maxInflatedBytes: 2 ** 40,
      maxInflateRatio: 1e9,
      officeMemoryBytes: limit,
      timeoutMs: 240_000,
    });
    await waitFor(async () => (await getHealth(conv.url)).pool.every((s) => s.state === "idle" && s.pid), 60_000);
  });
  afterAll(async () => {
    await conv?.close();
  });

  it(
    "kills that one conversion, keeps serving on the other office, and restarts the killed one",
    { timeout: 300_000 },
    async () => {
      const bomb = buildDocxBomb();
      let peak = 0;
      const pids = new Set<number>();
      const sampler = setInterval(() => {
        for (const s of conv.pool.health().pool) {
          if (s.pid === null) continue;
          pids.add(s.pid);
          peak = Math.max(peak, peakRss(s.pid));
        }
      }, 100);
      try {
        const pending = postConvert(conv.url, bomb);
        const busy = await waitFor(
          async () => (await getHealth(conv.url)).pool.find((s) => s.state === "busy"),
          10_000,
          20,
        );
        // The other office keeps converting while the bomb runs.
        const meanwhile = await postConvert(conv.url, onePage);
        expect(meanwhile.status).toBe(200);
        expect(meanwhile.headers.get("x-converter-slot")).not.toBe(String(busy.id));

        const res = await pending;
        // Out of memory, the office dies (503, the usual outcome); were it to survive, it would report a load failure.
        // Never the timeout: the limit ends it first.
        expect([`503 OFFICE_CRASHED`, `422 UNREADABLE_DOCX`], res.json?.message).toContain(
          `${res.status} ${res.json?.code}`,
        );
        expect(peak).toBeGreaterThan(0);
        expect(peak).toBeLessThan(limit);
        console.log(
          `soffice.bin peak RSS under the 650 MB bomb with a ${limit / MiB} MiB limit: ${Math.round(peak / MiB)} MiB after ${Math.round(res.ms)} ms`,
        );

        if (res.status === 503) {
          const health = await waitFor(async () => {
            const h = await getHealth(conv.url);
            const slot = h.pool.find((s) => s.id === busy.id)!;
            return slot.state === "idle" && slot.restarts >= 1 && h;
          }, 60_000);
          expect(health.pool.find((s) => s.id === busy.id)!.pid).not.toBe(busy.pid);
          await waitFor(() => !isAlive(busy.pid!), 5000);
        }
        const both = await Promise.all([postConvert(conv.url, onePage), postConvert(conv.url, onePage)]);
        expect(both.map((r) => r.status)).toEqual([200, 200]);
        expect((await getHealth(conv.url)).status).toBe("ok");
      } finally {
        clearInterval(sampler);
      }
    },
  );

  it("starts office processes under the limit (RLIMIT_AS)", async () => {
    const pid = (await getHealth(conv.url)).pool.find((s) => s.pid)!.pid!;
    const line = readFileSync(`/proc/${pid}/limits`, "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max address space"))!;
    expect(line.split(/\s{2,}/).slice(1, 3)).toEqual([String(limit), String(limit)]);
  });
});
