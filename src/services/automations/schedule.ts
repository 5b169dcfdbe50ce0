/**
 * Schedule math through croner (IANA time zones, DST handled by the library: a time that does not exist on the
 * spring-forward day fires once at the first valid instant after it, a repeated autumn hour fires once).
 * No cron arithmetic is written here.
 */
import { Cron } from "croner";
import { unprocessable } from "../../errors";
import type { StoredTrigger } from "../../db/schema";

export const DEFAULT_TIMEZONE = "UTC";
/** A `runAt` this far in the past when saved still fires once (clock skew between a client and the edge). */
export const RUN_AT_GRACE_MS = 60_000;

export function validTimezone(tz: string): boolean {
  // Intl also takes UTC offsets ("+05:00", "-0300"), which are not IANA names and do not follow DST.
  if (/^[+-]/.test(tz.trim())) return false;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function cronOf(expr: string, timezone: string): Cron {
  return new Cron(expr, { timezone, paused: true, legacyMode: true });
}

/** 422 for a cron that is not 5 fields croner accepts, or a time zone that is not IANA. */
export function checkSchedule(trigger: { cron?: string | null; timezone?: string | null }, path: string): void {
  const tz = trigger.timezone ?? DEFAULT_TIMEZONE;
  if (!validTimezone(tz))
    throw unprocessable(`Unknown time zone ${JSON.stringify(tz)}`, [
      { path: `${path}.timezone`, message: "not an IANA time zone" },
    ]);
  if (trigger.cron === null || trigger.cron === undefined) return;
  const fields = trigger.cron.trim().split(/\s+/);
  if (fields.length !== 5)
    throw unprocessable("A cron expression has 5 fields: minute hour day-of-month month day-of-week", [
      { path: `${path}.cron`, message: "not 5 fields" },
    ]);
  let next: Date | null;
  try {
    next = cronOf(trigger.cron, tz).nextRun(new Date());
  } catch (err) {
    throw unprocessable(`Invalid cron expression: ${(err as Error).message}`, [
      { path: `${path}.cron`, message: "invalid cron" },
    ]);
  }
  if (!next) throw unprocessable("The cron expression never fires", [{ path: `${path}.cron`, message: "never fires" }]);
}

/** The next instant strictly after `after` at which any schedule trigger fires, or null. */
export function nextRunAfter(
  triggers: readonly StoredTrigger[],
  after: number,
  opts: { runAtFloor?: number } = {},
): number | null {
  let best: number | null = null;
  for (const t of triggers) {
    let at: number | null = null;
    if (typeof t.cron === "string") {
      const next = cronOf(t.cron, (t.timezone as string | null) ?? DEFAULT_TIMEZONE).nextRun(new Date(after));
      at = next ? next.getTime() : null;
    } else if (typeof t.runAt === "number") {
      const floor = opts.runAtFloor ?? after;
      at = t.runAt > floor ? t.runAt : null;
    }
    if (at !== null && (best === null || at < best)) best = at;
  }
  return best;
}

/** `nextRunAt` when an automation is saved (or enabled): schedules restart from now, a missed past is not replayed. */
export function nextRunOnSave(triggers: readonly StoredTrigger[], enabled: boolean, now: number): number | null {
  if (!enabled) return null;
  const cronNext = nextRunAfter(
    triggers.filter((t) => typeof t.cron === "string"),
    now,
  );
  const runAtNext = nextRunAfter(
    triggers.filter((t) => typeof t.runAt === "number"),
    now,
    { runAtFloor: now - RUN_AT_GRACE_MS },
  );
  if (cronNext === null) return runAtNext;
  if (runAtNext === null) return cronNext;
  return Math.min(cronNext, runAtNext);
}
