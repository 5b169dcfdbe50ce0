// Waiting until a child answers its /health, and making sure the answer comes from that child.
import { StartError } from "./errors.mjs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Polls `url` until it answers 200 with a body that `isOurs(body)` accepts. A 200 from something else means
 * another server holds the port: that fails at once. The child exiting first fails too.
 */
export async function waitForHealth(url, { name, child, isOurs, timeoutMs = 120_000, hint }) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new StartError(
        `${name} exited (${child.exitCode ?? child.signalCode}) before ${url} answered; its output is above.`,
        { hint },
      );
    }
    let res;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(5000) });
    } catch {
      await sleep(250);
      continue;
    }
    const body = await res.json().catch(() => null);
    if (res.ok) {
      if (isOurs(body)) return body;
      throw new StartError(`Another server answers ${url} (not ${name}); something else listens on that port.`, {
        hint,
      });
    }
    await sleep(250);
  }
  throw new StartError(`${name} did not answer ${url} within ${Math.round(timeoutMs / 1000)} s.`, { hint });
}

/** Our Worker's GET /health (src/routes/discovery/health.ts). */
export const isWorkspaceHealth = (body) => body?.status === "ok" && body?.service === "workspace-edge";

/** The converter's GET /health (converter/src/pool.ts PoolHealth). */
export const isConverterHealth = (body) => Array.isArray(body?.pool) && typeof body?.queueLimit === "number";
