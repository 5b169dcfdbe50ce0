/**
 * Every answer the suite sees is checked against the served /openapi.json (docs/api-guide.md, "Discovery"):
 * whatever a test sends through SELF.fetch (test/support/harness.ts's call() included) is answered as usual, and a copy of
 * the answer goes to test/support/openapi-check.ts. A test whose calls met an answer the document does not describe fails
 * in its afterEach with the list.
 */
import { exports } from "cloudflare:workers";
import { afterAll, afterEach } from "vitest";
import { undescribed, type FetchFn } from "../support/openapi-check";

/** Set to false to only print what the document does not describe (while bringing a document up to date). */
const ENFORCE = true;

/** What the one wrapper collects: the checks still running and the answers found undescribed. */
interface Checker {
  pending: Promise<void>[];
  violations: string[];
}

/**
 * Wraps the Worker's fetch once per test run. The files share one module graph and one `exports.default`
 * (`isolate: false`, vitest.config.ts) while this setup file runs again before each file: wrapping on every run
 * nested one more wrapper per file, so a request of the last file was cloned and checked once per earlier file.
 */
function installChecker(): Checker {
  const checker: Checker = { pending: [], violations: [] };
  // SELF (cloudflare:test) reads exports.default on every access, so wrapping its fetch here covers every caller.
  const target = (exports as unknown as { default: { fetch: FetchFn } }).default;
  const originalFetch: FetchFn = target.fetch.bind(target);
  target.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await originalFetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = requestMethod(input, init);
    // A WebSocket upgrade or a body already streamed elsewhere cannot be read twice.
    if (res.webSocket || res.status === 101) return res;
    const copy = res.clone();
    checker.pending.push(
      undescribed(originalFetch, method, url, copy).then(
        (found) => void checker.violations.push(...found),
        (err) => void checker.violations.push(`${method} ${url.pathname}: checker failed: ${err}`),
      ),
    );
    return res;
  };
  return checker;
}

const CHECKER = Symbol.for("test/setup/openapi-responses: checker");
const shared = globalThis as typeof globalThis & { [CHECKER]?: Checker };
const checker = (shared[CHECKER] ??= installChecker());

function requestMethod(input: RequestInfo | URL, init?: RequestInit) {
  return (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
}

async function settle(): Promise<string[]> {
  while (checker.pending.length) await Promise.all(checker.pending.splice(0));
  return checker.violations.splice(0);
}

function report(found: string[]) {
  if (!found.length) return;
  const text = `${found.length} answer(s) not described by /openapi.json:\n  ${found.join("\n  ")}`;
  if (ENFORCE) throw new Error(text);
  console.warn(`[openapi-responses] ${text}`);
}

afterEach(async () => report(await settle()));
afterAll(async () => report(await settle()));
