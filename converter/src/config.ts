import { availableParallelism, tmpdir } from "node:os";
import { fileURLToPath } from "node:url";

export const MiB = 1024 * 1024;

export interface ConverterOptions {
  /** TCP port; 0 picks a free port. Env PORT, default 8788. */
  port: number;
  /** Bind address. Env HOST, default 127.0.0.1. */
  host: string;
  /** Shared secret expected in `x-converter-secret`; empty/undefined disables the check. Env CONVERTER_SECRET. */
  secret: string | undefined;
  /** Number of warm office processes. Env CONVERTER_POOL_SIZE, default: CPU cores. */
  poolSize: number;
  /** Max requests waiting for a free office process. Env CONVERTER_QUEUE_LIMIT, default 16. */
  queueLimit: number;
  /** Max time a request may wait in the queue. Env CONVERTER_QUEUE_TIMEOUT_MS, default 60000. */
  queueTimeoutMs: number;
  /** Max request body. Env CONVERTER_MAX_BODY_BYTES, default 64 MiB. */
  maxBodyBytes: number;
  /** Max sum of the DOCX's declared inflated entry sizes (else 413). Env CONVERTER_MAX_INFLATED_BYTES, default 100 MiB. */
  maxInflatedBytes: number;
  /** Max inflated:compressed ratio of one entry over 1 MiB (else 413). Env CONVERTER_MAX_INFLATE_RATIO, default 100. */
  maxInflateRatio: number;
  /** Address-space limit of each office process (RLIMIT_AS via prlimit); 0 = none. Env CONVERTER_OFFICE_MEMORY_MB, default 2048. */
  officeMemoryBytes: number;
  /** util-linux prlimit, used to start office processes under `officeMemoryBytes`. Env CONVERTER_PRLIMIT, default "prlimit". */
  prlimitPath: string;
  /** Base conversion timeout. Env CONVERTER_TIMEOUT_MS, default 20000. */
  timeoutMs: number;
  /** Extra timeout per MiB of input. Env CONVERTER_TIMEOUT_PER_MIB_MS, default 10000. */
  timeoutPerMiBMs: number;
  /** Recycle an office process after this many conversions. Env CONVERTER_MAX_CONVERSIONS, default 200. */
  maxConversions: number;
  /** Max time for an office process to accept UNO connections. Env CONVERTER_START_TIMEOUT_MS, default 60000. */
  startTimeoutMs: number;
  /** Grace period for in-flight conversions on shutdown. Env CONVERTER_SHUTDOWN_GRACE_MS, default 10000. */
  shutdownGraceMs: number;
  /** Parent of the per-run temp dir (profiles + job files). Env CONVERTER_TMPDIR, default os.tmpdir(). */
  tmpDir: string;
  /** LibreOffice launcher. Env CONVERTER_SOFFICE, default "soffice". */
  sofficePath: string;
  /** Python with the `uno` module (Debian python3-uno). Env CONVERTER_PYTHON, default /usr/bin/python3. */
  pythonPath: string;
  /** UNO helper script. Env CONVERTER_UNO_WORKER, default ../uno_worker.py. */
  unoWorkerPath: string;
  /** Log sink; `false` silences logs. */
  log: ((line: string) => void) | false;
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !Number.isInteger(value) || value < min) {
    throw new Error(`Invalid ${name}=${JSON.stringify(raw)}: expected an integer >= ${min}`);
  }
  return value;
}

function str(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const raw = env[name];
  return raw === undefined || raw.trim() === "" ? fallback : raw;
}

export function defaultLog(line: string): void {
  process.stderr.write(`${new Date().toISOString()} ${line}\n`);
}

/** Reads the options from environment variables (see README.md). */
export function optionsFromEnv(env: NodeJS.ProcessEnv = process.env): ConverterOptions {
  return {
    port: int(env, "PORT", 8788),
    host: str(env, "HOST", "127.0.0.1"),
    secret: env.CONVERTER_SECRET === "" ? undefined : env.CONVERTER_SECRET,
    poolSize: int(env, "CONVERTER_POOL_SIZE", Math.max(1, availableParallelism()), 1),
    queueLimit: int(env, "CONVERTER_QUEUE_LIMIT", 16),
    queueTimeoutMs: int(env, "CONVERTER_QUEUE_TIMEOUT_MS", 60_000, 1),
    maxBodyBytes: int(env, "CONVERTER_MAX_BODY_BYTES", 64 * MiB, 1),
    maxInflatedBytes: int(env, "CONVERTER_MAX_INFLATED_BYTES", 100 * MiB, 1),
    maxInflateRatio: int(env, "CONVERTER_MAX_INFLATE_RATIO", 100, 1),
    officeMemoryBytes: int(env, "CONVERTER_OFFICE_MEMORY_MB", 2048) * MiB,
    prlimitPath: str(env, "CONVERTER_PRLIMIT", "prlimit"),
    timeoutMs: int(env, "CONVERTER_TIMEOUT_MS", 20_000, 1),
    timeoutPerMiBMs: int(env, "CONVERTER_TIMEOUT_PER_MIB_MS", 10_000),
    maxConversions: int(env, "CONVERTER_MAX_CONVERSIONS", 200, 1),
    startTimeoutMs: int(env, "CONVERTER_START_TIMEOUT_MS", 60_000, 1),
    shutdownGraceMs: int(env, "CONVERTER_SHUTDOWN_GRACE_MS", 10_000),
    tmpDir: str(env, "CONVERTER_TMPDIR", tmpdir()),
    sofficePath: str(env, "CONVERTER_SOFFICE", "soffice"),
    pythonPath: str(env, "CONVERTER_PYTHON", "/usr/bin/python3"),
    unoWorkerPath: str(env, "CONVERTER_UNO_WORKER", fileURLToPath(new URL("../uno_worker.py", import.meta.url))),
    log: defaultLog,
  };
}

/** Conversion timeout for an input of `bytes` bytes. */
export function timeoutFor(options: Pick<ConverterOptions, "timeoutMs" | "timeoutPerMiBMs">, bytes: number): number {
  return Math.round(options.timeoutMs + (options.timeoutPerMiBMs * bytes) / MiB);
}
