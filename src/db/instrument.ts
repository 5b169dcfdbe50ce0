/**
 * Counts D1 round trips made while serving one request (a statement execution or a whole batch is one), so
 * responses can report them in `x-d1-round-trips`: the figure that tells an N+1 query from a batched read.
 * Methods are patched on the real statement objects (not wrapped in proxies) because D1's batch() needs its
 * own instances.
 */
export interface RoundTripCounter {
  count: number;
  /**
   * Bench only (`npm run bench -- latency`): every round trip waits this long first, modelling a database far
   * from the caller. Off (0) unless the D1_LATENCY_MS var is set.
   */
  delayMs?: number;
  /** Called before every round trip; throws to refuse it (no query may run before a batched authentication). */
  guard?: () => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Patchable = Record<string, (...args: unknown[]) => unknown>;

function patchStatement(stmt: D1PreparedStatement, counter: RoundTripCounter): D1PreparedStatement {
  const s = stmt as unknown as Patchable;
  const bind = stmt.bind;
  s.bind = (...values: unknown[]) => patchStatement(bind.apply(stmt, values), counter);
  for (const name of ["first", "all", "run", "raw"] as const) {
    const original = s[name]!;
    s[name] = (...args: unknown[]) => {
      counter.guard?.();
      counter.count += 1;
      if (counter.delayMs) return pause(counter.delayMs).then(() => original.apply(stmt, args));
      return original.apply(stmt, args);
    };
  }
  return stmt;
}

const UNCOUNTED = Symbol("uncounted D1");

/** The binding behind a counting proxy: for background work (waitUntil) that must not change a response's count. */
export function uncountedD1(db: D1Database): D1Database {
  return ((db as unknown as Record<symbol, D1Database>)[UNCOUNTED] ?? db);
}

export function countingD1(db: D1Database, counter: RoundTripCounter): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === UNCOUNTED) return target;
      if (prop === "prepare") return (query: string) => patchStatement(target.prepare(query), counter);
      if (prop === "batch" || prop === "exec") {
        return (...args: unknown[]) => {
          counter.guard?.();
          counter.count += 1;
          const call = () => (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
          return counter.delayMs ? pause(counter.delayMs).then(call) : call();
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
