import { readFileSync } from "node:fs";
import { startConverter, type RunningConverter, type StartConverterOptions } from "../src/server.ts";
import type { PoolHealth } from "../src/pool.ts";

export interface PostResult {
  status: number;
  headers: Headers;
  body: Buffer;
  /** Parsed JSON body for error responses. */
  json: { error?: string; message?: string; code?: string } | undefined;
  ms: number;
}

/** Starts a converter on a free loopback port, isolated from the process environment. */
export async function startTestConverter(
  options: StartConverterOptions,
): Promise<RunningConverter & { logs: string[] }> {
  const logs: string[] = [];
  const converter = await startConverter({
    env: {},
    host: "127.0.0.1",
    port: 0,
    log: (line) => {
      logs.push(line);
      if (process.env.CONVERTER_TEST_VERBOSE) process.stderr.write(`[converter] ${line}\n`);
    },
    ...options,
  });
  return Object.assign(converter, { logs });
}

export async function postConvert(
  url: string,
  body: Uint8Array,
  headers: Record<string, string> = {},
): Promise<PostResult> {
  const started = performance.now();
  const res = await fetch(`${url}/convert`, {
    method: "POST",
    headers: { "content-type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document", ...headers },
    body,
  });
  const buf = Buffer.from(await res.arrayBuffer());
  const isJson = res.headers.get("content-type")?.startsWith("application/json") ?? false;
  return {
    status: res.status,
    headers: res.headers,
    body: buf,
    json: isJson ? JSON.parse(buf.toString("utf8")) : undefined,
    ms: performance.now() - started,
  };
}

/** GET /health: 200 when an office process is ready, 503 (same body + error/message) when none is. */
export async function getHealth(url: string): Promise<PoolHealth & { httpStatus: number; error?: string }> {
  const res = await fetch(`${url}/health`);
  if (res.status !== 200 && res.status !== 503) throw new Error(`/health answered ${res.status}`);
  return { ...((await res.json()) as PoolHealth), httpStatus: res.status };
}

/** Polls `probe` until it returns a truthy value (or throws after timeoutMs). */
export async function waitFor<T>(
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 30_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** True if the process exists and is not a zombie (an orphaned soffice.bin may wait to be reaped by PID 1). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return process.platform !== "linux";
  }
}
