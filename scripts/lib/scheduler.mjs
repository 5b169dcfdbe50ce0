// npm start: fire the Worker's scheduled handler once a minute, as the Cron Trigger does in production.
// wrangler dev runs with --test-scheduled, which exposes GET /__scheduled?cron=… on the dev server.

/** Extra wrangler dev arguments: the test-scheduled route. */
export function schedulerDevArgs() {
  return ["--test-scheduled"];
}

/**
 * Calls `${base}/__scheduled` at the start of every minute (and once right away). Returns a stop function.
 * A failed call is reported and the next minute tried again.
 */
export function startScheduler(base, { log = console } = {}) {
  let timer = null;
  let stopped = false;
  const fire = async () => {
    try {
      const res = await fetch(`${base}/__scheduled?cron=${encodeURIComponent("* * * * *")}`);
      await res.arrayBuffer();
      if (!res.ok) log.warn(`! scheduled handler answered ${res.status}`);
    } catch (err) {
      log.warn(`! could not reach the scheduled handler: ${err.message}`);
    }
  };
  const schedule = () => {
    if (stopped) return;
    const wait = 60_000 - (Date.now() % 60_000) + 50;
    timer = setTimeout(async () => {
      await fire();
      schedule();
    }, wait);
    timer.unref?.();
  };
  void fire();
  schedule();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
