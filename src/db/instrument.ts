/**
 * Counts the D1 round trips made while serving one request, so responses can report them in `x-d1-round-trips`
 * (the figure that tells an N+1 query from a batched read) and name the databases they reached in
 * `x-d1-databases` (docs/api-guide.md › HTTP semantics). What is counted is the longest chain of round trips that
 * had to wait for one another: a round trip's level is one more than the highest level among the round trips that
 * had completed when it started, and the count is the highest level reached. Sequential calls count 1, 2, 3…; calls
 * started together (the directory's token check beside a shard's read) share a level. Methods are patched on the
 * real statement objects (not wrapped in proxies) because D1's batch() needs its own instances.
 */
export interface RoundTripCounter {
  count: number;
  /** The highest level among the round trips completed so far. */
  completed?: number;
  /** The bindings (DB, SHARD_k) this request's round trips reached. */
  databases?: Set<string>;
  /**
   * Bench only (`npm run bench -- latency`): every round trip waits this long first, modelling a database far
   * from the caller. Off (0) unless the D1_LATENCY_MS var is set.
   */
  delayMs?: number;
  /** Called before every round trip; throws to refuse it (no query may run before a batched authentication). */
  guard?: () => void;
  /** Called for every round trip, parallel ones included (an automation's operation budget); throws to refuse it. */
  charge?: () => void;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One round trip of `counter` to the database `name`: `call` runs after the guard, counted at its level. */
function roundTrip(counter: RoundTripCounter, name: string, call: () => unknown): Promise<unknown> {
  counter.guard?.();
  counter.charge?.();
  const level = (counter.completed ?? 0) + 1;
  if (level > counter.count) counter.count = level;
  (counter.databases ??= new Set()).add(name);
  const done = () => {
    if (level > (counter.completed ?? 0)) counter.completed = level;
  };
  const run = async () => {
    try {
      return await call();
    } finally {
      done();
    }
  };
  if (counter.delayMs) return pause(counter.delayMs).then(run);
  return run();
}

type Patchable = Record<string, (...args: unknown[]) => unknown>;

function patchStatement(stmt: D1PreparedStatement, counter: RoundTripCounter, name: string): D1PreparedStatement {
  const s = stmt as unknown as Patchable;
  const bind = stmt.bind;
  s.bind = (...values: unknown[]) => patchStatement(bind.apply(stmt, values), counter, name);
  for (const method of ["first", "all", "run", "raw"] as const) {
    const original = s[method]!;
    s[method] = (...args: unknown[]) => roundTrip(counter, name, () => original.apply(stmt, args));
  }
  return stmt;
}

const UNCOUNTED = Symbol("uncounted D1");

/** The binding behind a counting proxy: for background work (waitUntil) that must not change a response's count. */
export function uncountedD1(db: D1Database): D1Database {
  return (db as unknown as Record<symbol, D1Database>)[UNCOUNTED] ?? db;
}

/** `db` with every round trip counted in `counter` as one to the database `name` (its binding). */
export function countingD1(db: D1Database, counter: RoundTripCounter, name = "DB"): D1Database {
  return new Proxy(db, {
    get(target, prop) {
      if (prop === UNCOUNTED) return target;
      if (prop === "prepare") return (query: string) => patchStatement(target.prepare(query), counter, name);
      if (prop === "batch" || prop === "exec") {
        return (...args: unknown[]) =>
          roundTrip(counter, name, () => (target[prop] as (...a: unknown[]) => unknown).apply(target, args));
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** The `x-d1-databases` value: the bindings reached, sorted (empty when none). */
export function databasesHeader(counter: RoundTripCounter): string {
  return [...(counter.databases ?? [])].sort().join(",");
}
