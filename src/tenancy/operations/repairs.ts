/**
 * The Worker's own upkeep, started by its Cron Trigger every minute beside the automation scheduler (src/index.ts
 * hands in the list, REPAIRS): the repairs of what a write keeps in two databases — the four directory indexes
 * (portal routes, reference ids, the index of memberships, users' copies in the shards; all through
 * ./directoryIndex.ts) — and the delivery of what the shards' outboxes still hold, the removal of abandoned staged
 * imports. Each runs beside the others, never in their way: a failure is logged and tried again at the next tick.
 * The module runs them and imports none of them: the services define each repair, the entry point composes the list.
 */
import type { Env } from "../../env";

/** One repair: what to log when it fails, and the work (the whole Worker's env, the tick's clock). */
export type Repair = readonly [failure: string, run: (env: Env, now: number) => Promise<unknown>];

/** Starts every repair of `repairs`, each kept alive by `waitUntil`; returns at once. */
export function startRepairs(env: Env, ctx: ExecutionContext, now: number, repairs: readonly Repair[]): void {
  for (const [failure, repair] of repairs) {
    ctx.waitUntil(
      repair(env, now).catch((err: unknown) =>
        console.error(JSON.stringify({ level: "error", msg: failure, error: String(err) })),
      ),
    );
  }
}
