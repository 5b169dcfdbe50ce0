/**
 * @workspace-edge/client: a typed client for the Collaborative Workspace Service, generated from its /openapi.json
 * (schema.d.ts, by openapi-typescript) and driven by openapi-fetch. On top of openapi-fetch it:
 * - sends the bearer token;
 * - sends an Idempotency-Key on every POST and PATCH (one key per call, reused by that call's retries, so a retried create
 *   never creates twice);
 * - retries 429 after the Retry-After the service names (a bounded number of times, each wait bounded);
 * - throws every non-2xx answer as an ApiError carrying the service's error body `{ error, message, details? }`.
 *
 *   const api = createApiClient({ baseUrl: "http://127.0.0.1:8787", token });
 *   const me = await unwrap(api.GET("/me"));
 *   const project = await unwrap(api.POST("/project", { body: { workspaceId, name: "Contracts" } }));
 */
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./schema.js";

export type { components, operations, paths };
export type ErrorBody = components["schemas"]["Error"];
export type ErrorDetail = NonNullable<ErrorBody["details"]>[number];

/** A non-2xx answer of the service: its status and its error body. */
export class ApiError extends Error {
  readonly status: number;
  /** The error class (docs/api-guide.md › Errors), e.g. "NotFoundError"; `HTTP <status>` when the body is not the standard one. */
  readonly error: string;
  readonly details: ErrorDetail[];
  /** The parsed body as sent (E10's not-found shape, for instance, is not the standard error body). */
  readonly body: unknown;
  readonly response: Response;

  constructor(response: Response, body: unknown) {
    const std = isErrorBody(body) ? body : undefined;
    super(std?.message ?? `${response.status} ${response.statusText || "error"}`);
    this.name = "ApiError";
    this.status = response.status;
    this.error = std?.error ?? `HTTP ${response.status}`;
    this.details = std?.details ?? [];
    this.body = body;
    this.response = response;
  }
}

function isErrorBody(b: unknown): b is ErrorBody {
  return (
    typeof b === "object" &&
    b !== null &&
    typeof (b as ErrorBody).error === "string" &&
    typeof (b as ErrorBody).message === "string"
  );
}

export interface ApiClientOptions {
  baseUrl: string;
  /** A personal access token (cws_…): a full one, or a scoped one (docs/api-guide.md › Tokens and scopes). */
  token?: string;
  /** Retries of a 429 answer (default 3). */
  maxRetries?: number;
  /** Longest single wait for a retry in ms (default 60 000); a longer Retry-After is returned as the 429 instead. */
  maxRetryDelayMs?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: (input: Request) => Promise<Response>;
  /** Waits between retries (default setTimeout); tests may replace it. */
  sleep?: (ms: number) => Promise<void>;
}

export type ApiClient = Client<paths>;

export function createApiClient(options: ApiClientOptions): ApiClient {
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: options.token ? { authorization: `Bearer ${options.token}` } : undefined,
    fetch: retryingFetch(options),
  });
  client.use(throwOnError);
  return client;
}

/** The `data` of a successful call (non-2xx answers have already been thrown as ApiError). */
export async function unwrap<T>(call: Promise<{ data?: T; response: Response }>): Promise<NonNullable<T>> {
  const { data, response } = await call;
  if (data === undefined || data === null) throw new ApiError(response, undefined);
  return data as NonNullable<T>;
}

const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (response.ok || response.status === 304) return undefined;
    const type = response.headers.get("content-type") ?? "";
    let body: unknown;
    try {
      body = type.includes("json") ? await response.clone().json() : await response.clone().text();
    } catch {}
    throw new ApiError(response, body);
  },
};

/** Seconds or an HTTP date (RFC 9110 §10.2.3) → milliseconds from now; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function retryingFetch(options: ApiClientOptions): (input: Request) => Promise<Response> {
  const base = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  const maxRetries = options.maxRetries ?? 3;
  const maxDelay = options.maxRetryDelayMs ?? 60_000;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async (request) => {
    const headers = new Headers(request.headers);
    if ((request.method === "POST" || request.method === "PATCH") && !headers.has("idempotency-key"))
      headers.set("idempotency-key", crypto.randomUUID());
    // The body is read once, so every attempt can send the same bytes.
    const body = request.body ? await request.arrayBuffer() : undefined;
    for (let attempt = 0; ; attempt++) {
      const res = await base(
        new Request(request.url, { method: request.method, headers, body, signal: request.signal }),
      );
      if (res.status !== 429 || attempt >= maxRetries) return res;
      // Without Retry-After: exponential back-off from 1 s.
      const wait = retryAfterMs(res.headers.get("retry-after")) ?? 1000 * 2 ** attempt;
      if (wait > maxDelay) return res;
      await res.body?.cancel();
      await sleep(wait);
    }
  };
}

export * from "./filter.js";
