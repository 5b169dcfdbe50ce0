// One pool slot: a warm LibreOffice process plus the python UNO helper that drives it.
// Both are spawned `detached` (own process group) so a timeout/crash/recycle can kill
// the office (oosplash + soffice.bin) and the helper with one signal per group.
import { spawn, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { mkdir, readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

export type SlotState = "starting" | "idle" | "busy" | "restarting" | "stopped";

export type ConversionErrorCode = "LOAD_FAILED" | "EXPORT_FAILED" | "OFFICE_DIED" | "TIMEOUT" | "STOPPED";

export class ConversionError extends Error {
  readonly code: ConversionErrorCode;
  constructor(code: ConversionErrorCode, message: string) {
    super(message);
    this.name = "ConversionError";
    this.code = code;
  }
}

export interface SlotInfo {
  id: number;
  state: SlotState;
  /** PID of soffice.bin (the office process itself); null while not running. */
  pid: number | null;
  helperPid: number | null;
  /** Conversions done by the current office process. */
  conversions: number;
  totalConversions: number;
  restarts: number;
  lastError: string | null;
}

export interface SlotSettings {
  sofficePath: string;
  pythonPath: string;
  unoWorkerPath: string;
  startTimeoutMs: number;
  maxConversions: number;
  /** RLIMIT_AS of the office process (and its launcher), set through `prlimitPath`; 0 = no limit. */
  officeMemoryBytes: number;
  prlimitPath: string;
  profilesDir: string;
  log: (line: string) => void;
  /** Called whenever the slot becomes idle (ready after start, or done with a job). */
  onIdle: (slot: OfficeSlot) => void;
}

export interface SlotJob {
  input: string;
  output: string;
  timeoutMs: number;
}

const OFFICE_FLAGS = ["--headless", "--invisible", "--nologo", "--norestore", "--nodefault", "--nolockcheck"];

interface Proc {
  office: ChildProcess;
  helper: ChildProcess;
  profileDir: string;
  /** Named pipes the office creates in /tmp: our UNO accept pipe and its single-instance IPC pipe. */
  pipeNames: string[];
  launchedAt: number;
  ready: boolean;
  retired: boolean;
  startTimer: NodeJS.Timeout | undefined;
  stderr: string;
}

interface RunningJob {
  id: string;
  timer: NodeJS.Timeout;
  timeoutMs: number;
  resolve: () => void;
  reject: (err: ConversionError) => void;
}

export class OfficeSlot {
  readonly id: number;
  state: SlotState = "starting";
  pid: number | null = null;
  conversions = 0;
  totalConversions = 0;
  restarts = 0;
  lastError: string | null = null;

  private readonly settings: SlotSettings;
  private proc: Proc | null = null;
  private job: RunningJob | null = null;
  private reserved = false;
  private generation = 0;
  private jobSeq = 0;
  /** Consecutive failed starts (reset when the office becomes ready). */
  startFailures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private wakeRetry: (() => void) | undefined;
  private recycling: Promise<void> | null = null;

  constructor(id: number, settings: SlotSettings) {
    this.id = id;
    this.settings = settings;
  }

  info(): SlotInfo {
    return {
      id: this.id,
      state: this.state,
      pid: this.pid,
      helperPid: this.proc?.helper.pid ?? null,
      conversions: this.conversions,
      totalConversions: this.totalConversions,
      restarts: this.restarts,
      lastError: this.lastError,
    };
  }

  private stopped(): boolean {
    return this.state === "stopped";
  }

  get ready(): boolean {
    return this.state === "idle" || this.state === "busy";
  }

  /** Boots the office process (asynchronously; onIdle fires when ready). */
  start(): void {
    this.state = "starting";
    void this.launch();
  }

  /** Claims an idle slot for one job (synchronous, so two callers can never get the same slot). */
  reserve(): boolean {
    if (this.state !== "idle" || this.reserved) return false;
    this.reserved = true;
    this.state = "busy";
    return true;
  }

  /** Gives back a reserved slot that ended up unused. */
  unreserve(): void {
    if (!this.reserved) return;
    this.reserved = false;
    if (this.state === "busy" && this.proc?.ready) {
      this.state = "idle";
      this.settings.onIdle(this);
    }
  }

  /** Runs one conversion on a reserved slot. Rejects with ConversionError. */
  run(job: SlotJob): Promise<void> {
    const proc = this.proc;
    if (!this.reserved || this.state !== "busy" || proc === null || !proc.ready) {
      this.reserved = false;
      return Promise.reject(new ConversionError("OFFICE_DIED", "office process is not available"));
    }
    this.reserved = false;
    const id = `${this.generation}-${++this.jobSeq}`;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => this.onTimeout(id), job.timeoutMs);
      this.job = { id, timer, timeoutMs: job.timeoutMs, resolve, reject };
      proc.helper.stdin?.write(JSON.stringify({ id, input: job.input, output: job.output }) + "\n");
    });
  }

  /** Kills the processes and removes the profile; the slot stays stopped. */
  async stop(): Promise<void> {
    this.state = "stopped";
    clearTimeout(this.retryTimer);
    this.wakeRetry?.();
    this.failJob(new ConversionError("STOPPED", "converter is shutting down"));
    if (this.recycling) await this.recycling;
    await this.retire();
  }

  /** Synchronous last-resort cleanup for the process 'exit' hook: kill, remove pipes (the caller removes profiles). */
  killNow(): void {
    const proc = this.proc;
    if (!proc) return;
    killGroup(proc.office);
    killGroup(proc.helper);
    for (const pipe of pipePaths(proc)) rmSync(pipe, { force: true });
  }

  // ---- lifecycle -------------------------------------------------------------------------

  private async launch(): Promise<void> {
    if (this.state === "stopped") return;
    const gen = ++this.generation;
    const tag = `${process.pid}-${this.id}-${gen}-${randomBytes(4).toString("hex")}`;
    const profileDir = join(this.settings.profilesDir, `slot${this.id}-gen${gen}`);
    try {
      await mkdir(profileDir, { recursive: true });
    } catch (err) {
      this.startFailed(`cannot create profile dir: ${(err as Error).message}`);
      return;
    }
    if (this.stopped()) {
      await rm(profileDir, { recursive: true, force: true });
      return;
    }
    const pipeName = `converter-${tag}`;
    const accept = `pipe,name=${pipeName};urp;StarOffice.ComponentContext`;
    const userInstallation = pathToFileURL(profileDir).href;
    const officeArgs = [...OFFICE_FLAGS, `-env:UserInstallation=${userInstallation}`, `--accept=${accept}`];
    // Under a memory limit, a document that makes the office allocate without bound (a ZIP bomb that got past the
    // checks) ends that one process (the slot restarts it) instead of the machine. prlimit execs soffice in place,
    // so the process group and the PIDs stay the same; soffice.bin inherits the limit from its launcher.
    const memory = this.settings.officeMemoryBytes;
    const office =
      memory > 0
        ? spawn(this.settings.prlimitPath, [`--as=${memory}`, this.settings.sofficePath, ...officeArgs], {
            detached: true,
            stdio: "ignore",
          })
        : spawn(this.settings.sofficePath, officeArgs, { detached: true, stdio: "ignore" });
    const helper = spawn(
      this.settings.pythonPath,
      [this.settings.unoWorkerPath, accept, String(Math.ceil(this.settings.startTimeoutMs / 1000))],
      { detached: true, stdio: ["pipe", "pipe", "pipe"] },
    );
    const proc: Proc = {
      office,
      helper,
      profileDir,
      pipeNames: [pipeName, singleOfficePipeName(userInstallation)],
      launchedAt: performance.now(),
      ready: false,
      retired: false,
      startTimer: undefined,
      stderr: "",
    };
    this.proc = proc;

    office.on("error", (err) => this.onProcExit(proc, `office failed to start: ${err.message}`));
    office.on("exit", (code, signal) => this.onProcExit(proc, `office exited (${signal ?? `code ${code}`})`));
    helper.on("error", (err) => this.onProcExit(proc, `UNO helper failed to start: ${err.message}`));
    helper.on("exit", (code, signal) => this.onProcExit(proc, `UNO helper exited (${signal ?? `code ${code}`})`));
    helper.stdin?.on("error", () => {}); // EPIPE when the helper died; handled by 'exit'
    helper.stderr?.setEncoding("utf8");
    helper.stderr?.on("data", (chunk: string) => {
      proc.stderr = (proc.stderr + chunk).slice(-2000);
    });
    createInterface({ input: helper.stdout! }).on("line", (line) => this.onLine(proc, line));
    proc.startTimer = setTimeout(() => {
      if (!proc.ready && this.proc === proc) {
        this.startFailed(`office did not accept UNO connections within ${this.settings.startTimeoutMs} ms`);
      }
    }, this.settings.startTimeoutMs + 5000);
  }

  private onLine(proc: Proc, line: string): void {
    if (proc !== this.proc || proc.retired) return;
    let msg: { event?: string; id?: string; ok?: boolean; code?: string; error?: string };
    try {
      msg = JSON.parse(line);
    } catch {
      this.settings.log(`slot ${this.id}: unexpected helper output: ${line.slice(0, 200)}`);
      return;
    }
    if (msg.event === "ready") {
      void this.becameReady(proc);
      return;
    }
    if (msg.event === "fatal") {
      this.lastError = msg.error ?? "UNO helper failed";
      return; // the helper exits next; 'exit' does the rest
    }
    const job = this.job;
    if (!job || msg.id !== job.id) return;
    if (msg.code === "OFFICE_DIED") {
      this.crashed(proc, msg.error ?? "office process died during conversion");
      return;
    }
    clearTimeout(job.timer);
    this.job = null;
    this.conversions++;
    this.totalConversions++;
    if (msg.ok) job.resolve();
    else {
      const code: ConversionErrorCode = msg.code === "LOAD_FAILED" ? "LOAD_FAILED" : "EXPORT_FAILED";
      job.reject(new ConversionError(code, msg.error ?? "conversion failed"));
    }
    if (this.conversions >= this.settings.maxConversions) {
      this.recycle(`recycling after ${this.conversions} conversions`);
    } else if (this.state === "busy") {
      this.state = "idle";
      this.settings.onIdle(this);
    }
  }

  private async becameReady(proc: Proc): Promise<void> {
    clearTimeout(proc.startTimer);
    const pid = (await findOfficePid(proc.office.pid)) ?? proc.office.pid ?? null;
    if (proc !== this.proc || proc.retired || this.state === "stopped") return;
    proc.ready = true;
    this.pid = pid;
    this.conversions = 0;
    this.startFailures = 0;
    this.state = "idle";
    const ms = Math.round(performance.now() - proc.launchedAt);
    this.settings.log(`slot ${this.id}: office ready in ${ms} ms (pid ${pid}, helper ${proc.helper.pid})`);
    this.settings.onIdle(this);
  }

  private onProcExit(proc: Proc, reason: string): void {
    if (proc !== this.proc || proc.retired || this.state === "stopped") return;
    if (!proc.ready) {
      this.startFailed(`${reason}${proc.stderr ? `: ${lastLine(proc.stderr)}` : ""}`);
      return;
    }
    this.crashed(proc, reason);
  }

  private crashed(proc: Proc, reason: string): void {
    if (proc !== this.proc || proc.retired) return;
    this.lastError = reason;
    this.failJob(new ConversionError("OFFICE_DIED", "the office process crashed during the conversion"));
    this.recycle(reason);
  }

  private onTimeout(id: string): void {
    const job = this.job;
    if (!job || job.id !== id) return;
    this.job = null;
    this.lastError = `conversion timed out after ${job.timeoutMs} ms`;
    job.reject(new ConversionError("TIMEOUT", `conversion did not finish within ${job.timeoutMs} ms`));
    this.recycle(this.lastError);
  }

  private startFailed(reason: string): void {
    this.startFailures++;
    this.lastError = reason;
    const delay = Math.min(30_000, 500 * 2 ** Math.min(this.startFailures - 1, 6));
    this.recycle(`start failed (${reason})`, delay);
  }

  private failJob(err: ConversionError): void {
    const job = this.job;
    if (!job) return;
    this.job = null;
    clearTimeout(job.timer);
    job.reject(err);
  }

  /** Kills the current processes and starts fresh ones, off the request path. */
  private recycle(reason: string, delayMs = 0): void {
    if (this.state === "stopped") return;
    const wasRunning = this.proc?.ready ?? false;
    this.state = this.state === "starting" && !wasRunning ? "starting" : "restarting";
    this.reserved = false;
    this.pid = null;
    if (wasRunning) this.restarts++;
    this.settings.log(`slot ${this.id}: ${reason}; restarting${delayMs > 0 ? ` in ${delayMs} ms` : ""}`);
    let cycle: Promise<void> | undefined = undefined;
    cycle = (async () => {
      await this.retire();
      if (delayMs > 0 && this.state !== "stopped") {
        await new Promise<void>((resolve) => {
          this.wakeRetry = resolve;
          this.retryTimer = setTimeout(resolve, delayMs);
        });
        this.wakeRetry = undefined;
      }
      if (this.recycling === cycle) this.recycling = null;
      if (this.state !== "stopped") await this.launch();
    })();
    this.recycling = cycle;
  }

  /** Kills the process groups of the current generation and deletes its profile. */
  private async retire(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.proc = null;
    proc.retired = true;
    clearTimeout(proc.startTimer);
    killGroup(proc.office);
    killGroup(proc.helper);
    await Promise.all([waitExit(proc.office, 5000), waitExit(proc.helper, 5000)]);
    await rm(proc.profileDir, { recursive: true, force: true, maxRetries: 3 }).catch((err: Error) =>
      this.settings.log(`slot ${this.id}: cannot remove profile ${proc.profileDir}: ${err.message}`),
    );
    for (const pipe of pipePaths(proc)) await rm(pipe, { force: true }).catch(() => {});
  }
}

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }
}

function waitExit(child: ChildProcess, timeoutMs: number): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, timeoutMs);
    function done() {
      clearTimeout(timer);
      child.off("exit", done);
      child.off("error", done);
      resolve();
    }
    child.once("exit", done);
    child.once("error", done);
  });
}

/** A killed office leaves its named-pipe sockets behind (osl uses /tmp, or /var/tmp as fallback). */
function pipePaths(proc: Proc): string[] {
  const uid = process.getuid?.() ?? 0;
  return ["/tmp", "/var/tmp"].flatMap((dir) => proc.pipeNames.map((name) => join(dir, `OSL_PIPE_${uid}_${name}`)));
}

/** LibreOffice's single-instance pipe: "SingleOfficeIPC_" + MD5(UTF-16LE UserInstallation URL), unpadded hex. */
export function singleOfficePipeName(userInstallationUrl: string): string {
  const digest = createHash("md5").update(Buffer.from(userInstallationUrl, "utf16le")).digest();
  return `SingleOfficeIPC_${[...digest].map((b) => b.toString(16)).join("")}`;
}

function lastLine(text: string): string {
  const lines = text.trim().split("\n");
  return lines[lines.length - 1] ?? "";
}

/** The soffice launcher (oosplash) forks soffice.bin in the same process group; find its PID via /proc. */
async function findOfficePid(groupId: number | undefined): Promise<number | undefined> {
  if (groupId === undefined || process.platform !== "linux") return undefined;
  let entries: string[];
  try {
    entries = await readdir("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, "utf8");
      const close = stat.lastIndexOf(")");
      const comm = stat.slice(stat.indexOf("(") + 1, close);
      const fields = stat.slice(close + 2).split(" "); // state ppid pgrp ...
      if (comm === "soffice.bin" && Number(fields[2]) === groupId) return Number(entry);
    } catch {
      // process vanished
    }
  }
  return undefined;
}
