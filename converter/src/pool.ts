// Pool of warm office slots + bounded FIFO wait queue.
import { rmSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { MiB, timeoutFor, type ConverterOptions } from "./config.ts";
import { checkInflatedSizes, inspectDocx } from "./docx.ts";
import { HttpError, internal, unavailable, unprocessable } from "./errors.ts";
import { ConversionError, OfficeSlot, type SlotInfo } from "./office.ts";

export type PoolOptions = Pick<
  ConverterOptions,
  | "poolSize"
  | "queueLimit"
  | "queueTimeoutMs"
  | "timeoutMs"
  | "timeoutPerMiBMs"
  | "maxConversions"
  | "maxInflatedBytes"
  | "maxInflateRatio"
  | "officeMemoryBytes"
  | "prlimitPath"
  | "startTimeoutMs"
  | "sofficePath"
  | "pythonPath"
  | "unoWorkerPath"
>;

export interface PoolHealth {
  status: "ok" | "degraded";
  /** At least one office process can take work. */
  ready: boolean;
  pool: SlotInfo[];
  queued: number;
  queueLimit: number;
  inFlight: number;
}

export interface ConversionResult {
  pdf: Buffer;
  slotId: number;
  /** Time spent converting in the office process. */
  convertMs: number;
  /** Time spent waiting for a free office process. */
  queuedMs: number;
}

interface Waiter {
  resolve: (slot: OfficeSlot) => void;
  reject: (err: Error) => void;
  cleanup: () => void;
}

export class OfficePool {
  readonly slots: OfficeSlot[];
  private readonly options: PoolOptions;
  private readonly jobsDir: string;
  private readonly log: (line: string) => void;
  private readonly queue: Waiter[] = [];
  private readonly readyWaiters = new Set<() => void>();
  private closed = false;
  private inFlight = 0;
  private avgConvertMs = 1000;
  private readonly runDir: string;
  /** Last resort if the process exits without close(): kill every office group, remove temp files. */
  private readonly exitHook = () => {
    for (const slot of this.slots) slot.killNow();
    try {
      rmSync(this.runDir, { recursive: true, force: true });
    } catch {
      // best effort
    }
  };

  constructor(options: PoolOptions, runDir: string, log: (line: string) => void) {
    this.options = options;
    this.log = log;
    this.runDir = runDir;
    this.jobsDir = join(runDir, "jobs");
    const profilesDir = join(runDir, "profiles");
    this.slots = Array.from(
      { length: options.poolSize },
      (_, i) =>
        new OfficeSlot(i + 1, {
          sofficePath: options.sofficePath,
          pythonPath: options.pythonPath,
          unoWorkerPath: options.unoWorkerPath,
          startTimeoutMs: options.startTimeoutMs,
          maxConversions: options.maxConversions,
          officeMemoryBytes: options.officeMemoryBytes,
          prlimitPath: options.prlimitPath,
          profilesDir,
          log,
          onIdle: () => this.dispatch(),
        }),
    );
  }

  async start(): Promise<void> {
    await mkdir(this.jobsDir, { recursive: true });
    process.on("exit", this.exitHook);
    for (const slot of this.slots) slot.start();
  }

  /**
   * Resolves once at least one office process is idle. Rejects after `timeoutMs`, or as soon as
   * every slot failed to start `maxStartFailures` times in a row (e.g. soffice is not installed).
   */
  whenReady(timeoutMs: number, maxStartFailures = 3): Promise<void> {
    if (this.slots.some((s) => s.ready)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const finish = (err?: Error) => {
        clearTimeout(timer);
        clearInterval(poll);
        this.readyWaiters.delete(done);
        if (err) reject(err);
        else resolve();
      };
      const done = () => finish();
      const fail = (why: string) => {
        const errors = this.slots.map((s) => `slot ${s.id}: ${s.lastError ?? s.state}`).join("; ");
        finish(new Error(`${why} (${errors})`));
      };
      const timer = setTimeout(() => fail(`no office process became ready within ${timeoutMs} ms`), timeoutMs);
      const poll = setInterval(() => {
        if (this.slots.every((s) => s.startFailures >= maxStartFailures)) {
          fail(`every office process failed to start ${maxStartFailures} times`);
        }
      }, 100);
      this.readyWaiters.add(done);
    });
  }

  health(): PoolHealth {
    const pool = this.slots.map((s) => s.info());
    return {
      status: pool.every((s) => s.state === "idle" || s.state === "busy") ? "ok" : "degraded",
      ready: pool.some((s) => s.state === "idle" || s.state === "busy"),
      pool,
      queued: this.queue.length,
      queueLimit: this.options.queueLimit,
      inFlight: this.inFlight,
    };
  }

  /** Converts DOCX bytes to PDF bytes. Throws HttpError (422/500/503). */
  async convert(input: Uint8Array, signal?: AbortSignal): Promise<ConversionResult> {
    // Size before work: the archive's declared sizes, then what it really inflates to, before an office sees it.
    const bounds = {
      maxTotalInflated: this.options.maxInflatedBytes,
      maxRatio: this.options.maxInflateRatio,
      ratioGraceBytes: MiB,
    };
    const inspected = inspectDocx(input, bounds);
    if ("error" in inspected) throw inspected.error;
    const lie = await checkInflatedSizes(input, inspected.entries);
    if (lie) throw lie;
    const queuedAt = performance.now();
    const slotPromise = this.acquire(signal); // throws synchronously when the queue is full
    slotPromise.catch(() => {});
    this.inFlight++;
    let jobDir: string | undefined;
    try {
      try {
        await mkdir(this.jobsDir, { recursive: true }); // cheap; survives an over-eager /tmp cleaner
        jobDir = await mkdtemp(join(this.jobsDir, "job-"));
        await writeFile(join(jobDir, "input.docx"), input);
      } catch (err) {
        slotPromise.then(
          (slot) => slot.unreserve(),
          () => {},
        );
        throw internal(`cannot write temporary input file: ${(err as Error).message}`, "TEMP_FILE_ERROR");
      }
      const slot = await slotPromise;
      const startedAt = performance.now();
      const output = join(jobDir, "output.pdf");
      const timeoutMs = timeoutFor(this.options, input.byteLength);
      try {
        await slot.run({ input: join(jobDir, "input.docx"), output, timeoutMs });
      } catch (err) {
        throw toHttpError(err, timeoutMs);
      }
      const convertMs = performance.now() - startedAt;
      this.avgConvertMs = this.avgConvertMs * 0.8 + convertMs * 0.2;
      let pdf: Buffer;
      try {
        pdf = await readFile(output);
      } catch {
        throw internal("the office process reported success but wrote no PDF", "NO_OUTPUT");
      }
      if (pdf.subarray(0, 5).toString("latin1") !== "%PDF-") {
        throw internal("the office process produced an invalid PDF", "INVALID_OUTPUT");
      }
      return { pdf, slotId: slot.id, convertMs, queuedMs: startedAt - queuedAt };
    } finally {
      this.inFlight--;
      if (jobDir !== undefined) {
        await rm(jobDir, { recursive: true, force: true, maxRetries: 3 }).catch((err: Error) =>
          this.log(`cannot remove ${jobDir}: ${err.message}`),
        );
      }
    }
  }

  /** Stops taking work, rejects queued requests, lets running conversions finish (up to graceMs), kills all offices. */
  async close(graceMs = 0): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      for (const waiter of this.queue.splice(0)) {
        waiter.cleanup();
        waiter.reject(unavailable("The converter is shutting down.", "SHUTTING_DOWN", 5));
      }
    }
    const deadline = Date.now() + graceMs;
    while (this.slots.some((s) => s.state === "busy") && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await Promise.all(this.slots.map((s) => s.stop()));
    process.off("exit", this.exitHook);
  }

  private retryAfterSeconds(): number {
    const ready = Math.max(1, this.slots.filter((s) => s.ready).length);
    const seconds = ((this.queue.length + 1) * this.avgConvertMs) / ready / 1000;
    return Math.min(30, Math.max(1, Math.ceil(seconds)));
  }

  private acquire(signal?: AbortSignal): Promise<OfficeSlot> {
    if (this.closed) throw unavailable("The converter is shutting down.", "SHUTTING_DOWN", 5);
    if (this.queue.length === 0) {
      for (const slot of this.slots) if (slot.reserve()) return Promise.resolve(slot);
    }
    if (this.queue.length >= this.options.queueLimit) {
      throw unavailable(
        `All ${this.slots.length} office processes are busy and the wait queue is full (${this.options.queueLimit}); retry later.`,
        "QUEUE_FULL",
        this.retryAfterSeconds(),
      );
    }
    return new Promise<OfficeSlot>((resolve, reject) => {
      const remove = () => {
        const i = this.queue.indexOf(waiter);
        if (i >= 0) this.queue.splice(i, 1);
        waiter.cleanup();
      };
      const timer = setTimeout(() => {
        remove();
        reject(
          unavailable(
            `No office process became free within ${this.options.queueTimeoutMs} ms; retry later.`,
            "QUEUE_TIMEOUT",
            this.retryAfterSeconds(),
          ),
        );
      }, this.options.queueTimeoutMs);
      const onAbort = () => {
        remove();
        reject(new HttpError(499, "ClientClosedRequestError", "client closed the request", "CLIENT_CLOSED"));
      };
      const waiter: Waiter = {
        resolve,
        reject,
        cleanup: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", onAbort);
        },
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  /** Hands idle slots to waiting requests in FIFO order. */
  private dispatch(): void {
    for (const done of [...this.readyWaiters]) done();
    while (this.queue.length > 0) {
      const slot = this.slots.find((s) => s.reserve());
      if (!slot) return;
      const waiter = this.queue.shift()!;
      waiter.cleanup();
      waiter.resolve(slot);
    }
  }
}

function toHttpError(err: unknown, timeoutMs: number): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof ConversionError) {
    switch (err.code) {
      case "LOAD_FAILED":
        return unprocessable(
          "LibreOffice could not read the document: the DOCX is corrupt or not a Word document.",
          "UNREADABLE_DOCX",
        );
      case "EXPORT_FAILED":
        return internal(`PDF export failed: ${err.message}`, "EXPORT_FAILED");
      case "TIMEOUT":
        return unavailable(
          `Conversion did not finish within ${(timeoutMs / 1000).toFixed(1)} s; the office process was restarted.`,
          "CONVERSION_TIMEOUT",
        );
      case "OFFICE_DIED":
        return unavailable("The office process crashed during the conversion; retry the request.", "OFFICE_CRASHED", 1);
      case "STOPPED":
        return unavailable("The converter is shutting down.", "SHUTTING_DOWN", 5);
    }
  }
  return internal(`unexpected error: ${(err as Error)?.message ?? String(err)}`);
}
