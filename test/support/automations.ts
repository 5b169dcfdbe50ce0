/** Helpers for the automation tests: the receiver, polling for runs and deliveries, direct handler calls. */
import {
  createExecutionContext,
  createMessageBatch,
  createScheduledController,
  env,
  getQueueResult,
  waitOnExecutionContext,
} from "cloudflare:test";
import worker from "../../src/index";
import { ok, type Tenant } from "./harness";

/** The loopback receiver started by test/setup/global.ts; its origin is the one WEBHOOK_ALLOWED_ORIGINS exempts. */
export const receiverUrl = () => env.WEBHOOK_ALLOWED_ORIGINS!.split(",")[0]!;

export function hookUrl(key: string, query: Record<string, string> = {}) {
  const q = new URLSearchParams(query).toString();
  return `${receiverUrl()}/hook/${key}${q ? `?${q}` : ""}`;
}

export async function receiverLog(
  key: string,
): Promise<{ method: string; headers: Record<string, string>; body: string; at: number; inFlight: number }[]> {
  const res = await fetch(`${receiverUrl()}/log/${key}`);
  return res.json();
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls every 50 ms until `check` returns something truthy (or throws after `timeoutMs`). */
export async function eventually<T>(
  check: () => Promise<T | null | undefined | false>,
  timeoutMs = 20_000,
  what = "condition",
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    await sleep(50);
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

export async function runs(
  token: string,
  automationId: string,
  query: Record<string, string | number> = {},
): Promise<any[]> {
  return (await ok("GET", `/automation/${automationId}/runs`, { token, query })).data;
}

/** Waits until the automation has `count` finished runs (not queued/running) and returns them, newest first. */
export async function finishedRuns(token: string, automationId: string, count = 1, timeoutMs = 20_000): Promise<any[]> {
  return eventually(
    async () => {
      const list = await runs(token, automationId, { limit: 100 });
      const done = list.filter((r) => r.status !== "queued" && r.status !== "running");
      return done.length >= count ? done : null;
    },
    timeoutMs,
    `${count} finished run(s) of ${automationId}`,
  );
}

export async function callQueue(queue: string, bodies: unknown[], attempts = 1) {
  const batch = createMessageBatch(
    queue,
    bodies.map((body, i) => ({ id: `msg-${Date.now()}-${i}-${Math.random()}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue!(batch as MessageBatch<unknown>, env, ctx);
  return getQueueResult(batch, ctx);
}

/** The Worker's scheduled handler for the instant `scheduledTime`, its waitUntil work awaited (`bindings`: env by default). */
export async function callScheduled(scheduledTime: number, bindings: typeof env = env) {
  const controller = createScheduledController({ scheduledTime, cron: "* * * * *" });
  const ctx = createExecutionContext();
  await worker.scheduled!(controller, bindings, ctx);
  await waitOnExecutionContext(ctx);
}

export function webhookAction(url: string, extra: Record<string, unknown> = {}) {
  return { id: "hook", spec: { kind: "webhook", url, ...extra } };
}

/** A notify-only automation "Conditional" in the tenant's project, made by its owner (the ETag and If-Match tests). */
export async function conditionalAutomation(t: Tenant) {
  return (
    await ok("POST", "/automation", {
      token: t.owner.token,
      body: {
        projectId: t.projectId,
        name: "Conditional",
        actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
      },
    })
  ).data;
}
