/**
 * The scheduled upkeep's pass over every shard database (docs/scaling.md "Repairs"): the same work on each database
 * side by side. A database whose work fails is logged and left to the next tick; the others' results stand.
 */
import type { Env } from "../env";
import { systemContext } from "./context";

/** `work` on every shard database at once: the sum of what each answered, and how many failed (logged as `name`). */
export async function onEveryShardDatabase(
  env: Env,
  name: string,
  work: (d1: D1Database) => Promise<number>,
): Promise<{ total: number; failed: number }> {
  const settled = await Promise.allSettled(
    systemContext(env)
      .everyShard()
      .map(({ d1 }) => work(d1)),
  );
  let total = 0;
  let failed = 0;
  for (const s of settled) {
    if (s.status === "fulfilled") total += s.value;
    else {
      failed++;
      console.error(
        JSON.stringify({ level: "error", msg: `${name} failed on a shard database`, error: String(s.reason) }),
      );
    }
  }
  return { total, failed };
}
