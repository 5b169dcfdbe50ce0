// HTTP front of the converter: POST /convert (DOCX -> PDF) and GET /health.
import { createHash, timingSafeEqual } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { optionsFromEnv, type ConverterOptions } from "./config.ts";
import { HttpError, internal, methodNotAllowed, notFound, payloadTooLarge, unauthorized } from "./errors.ts";
import { OfficePool } from "./pool.ts";

export interface StartConverterOptions extends Partial<ConverterOptions> {
  /** Environment used for options not given explicitly (default process.env). */
  env?: NodeJS.ProcessEnv;
}

export interface RunningConverter {
  /** Base URL, e.g. http://127.0.0.1:8788 */
  url: string;
  pool: OfficePool;
  server: Server;
  options: ConverterOptions;
  /** Stops the HTTP server and kills every office process; removes temp files. */
  close(): Promise<void>;
}

export const SECRET_HEADER = "x-converter-secret";

/**
 * Starts the converter in-process. Resolves once the HTTP server listens AND at least one
 * office process is idle (rejects if none becomes ready within `startTimeoutMs`).
 */
export async function startConverter(overrides: StartConverterOptions = {}): Promise<RunningConverter> {
  const { env, ...explicit } = overrides;
  const defined = Object.fromEntries(Object.entries(explicit).filter(([, v]) => v !== undefined));
  const options: ConverterOptions = { ...optionsFromEnv(env ?? process.env), ...defined };
  const log = options.log === false ? () => {} : options.log;
  if (options.poolSize < 1) throw new Error("poolSize must be >= 1");

  const runDir = await mkdtemp(join(options.tmpDir, "converter-"));
  const pool = new OfficePool(options, runDir, log);
  let closing: Promise<void> | undefined;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`unhandled error: ${(err as Error)?.stack ?? String(err)}`);
      if (!res.headersSent) sendError(res, internal("unexpected server error"));
      else res.destroy();
    });
  });
  server.requestTimeout = 300_000; // receiving the request only; conversion time is bounded by our own timeouts
  server.headersTimeout = 60_000;
  server.keepAliveTimeout = 5_000;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://converter").pathname;
    if (path === "/health") {
      if (req.method !== "GET" && req.method !== "HEAD")
        return sendError(res, methodNotAllowed("Use GET /health.", "GET, HEAD"));
      // 200 when at least one office process can take work, else 503 (same JSON plus error/message),
      // so `GET /health` doubles as a readiness probe.
      const health = pool.health();
      if (health.ready) return sendJson(res, 200, health, req.method === "HEAD");
      const message = "No office process is ready yet (starting or restarting); requests will wait in the queue.";
      return sendJson(res, 503, { error: "ServiceUnavailableError", message, ...health }, req.method === "HEAD", {
        "retry-after": "1",
      });
    }
    if (path !== "/convert") return sendError(res, notFound(`No route for ${req.method} ${path}.`));
    if (req.method !== "POST")
      return sendError(res, methodNotAllowed("Use POST /convert with DOCX bytes as the body.", "POST"));
    if (options.secret && !secretMatches(req.headers[SECRET_HEADER], options.secret)) {
      return sendError(res, unauthorized(`Missing or wrong ${SECRET_HEADER} header.`));
    }
    const controller = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) controller.abort();
    });
    const started = performance.now();
    try {
      const body = await readBody(req, options.maxBodyBytes);
      const result = await pool.convert(body, controller.signal);
      res.writeHead(200, {
        "content-type": "application/pdf",
        "content-length": result.pdf.byteLength,
        "cache-control": "no-store",
        "x-converter-slot": String(result.slotId),
        "x-converter-queue-ms": String(Math.round(result.queuedMs)),
        "x-converter-convert-ms": String(Math.round(result.convertMs)),
      });
      res.end(result.pdf);
      log(
        `POST /convert 200 ${body.byteLength}B -> ${result.pdf.byteLength}B slot ${result.slotId} ` +
          `queue ${Math.round(result.queuedMs)}ms convert ${Math.round(result.convertMs)}ms`,
      );
    } catch (err) {
      const httpError = err instanceof HttpError ? err : internal(`unexpected error: ${(err as Error)?.message}`);
      log(
        `POST /convert ${httpError.status} ${httpError.code ?? httpError.error} after ${Math.round(performance.now() - started)}ms: ${httpError.message}`,
      );
      if (httpError.status === 499 || res.destroyed) return;
      sendError(res, httpError, httpError.status === 413);
    }
  }

  await pool.start();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;

  const close = (): Promise<void> => {
    closing ??= (async () => {
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await pool.close(options.shutdownGraceMs);
      server.closeAllConnections();
      await serverClosed;
      await rm(runDir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return closing;
  };

  try {
    await pool.whenReady(options.startTimeoutMs + 10_000);
  } catch (err) {
    await close();
    throw err;
  }
  return { url, pool, server, options, close };
}

function secretMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = createHash("sha256").update(given).digest();
  const b = createHash("sha256").update(expected).digest();
  return timingSafeEqual(a, b);
}

function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers["content-length"]);
  if (Number.isFinite(declared) && declared > maxBytes) {
    return Promise.reject(tooLarge(maxBytes));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total > maxBytes) {
        cleanup();
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks, total));
    };
    const onError = (err: Error) => {
      cleanup();
      reject(err);
    };
    const onAborted = () => {
      cleanup();
      reject(new HttpError(499, "ClientClosedRequestError", "client closed the request", "CLIENT_CLOSED"));
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}

function tooLarge(maxBytes: number): HttpError {
  return payloadTooLarge(`Request body exceeds the limit of ${maxBytes} bytes.`);
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headOnly = false,
  headers: Record<string, string> = {},
): void {
  const json = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    "cache-control": "no-store",
  });
  res.end(headOnly ? undefined : json);
}

/** Sends `{ error, message, code }`. Node discards an unread request body; `closeConnection` drops keep-alive. */
function sendError(res: ServerResponse, err: HttpError, closeConnection = false): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const headers = { ...err.headers };
  if (closeConnection) headers.connection = "close";
  sendJson(res, err.status, err.toJSON(), false, headers);
}
