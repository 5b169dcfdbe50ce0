/**
 * Counts D1 round trips made while serving one request (a statement execution or a whole batch is one), so
 * responses can report them in `x-d1-round-trips`: the figure that tells an N+1 query from a batched read.
 * Methods are patched on the real statement objects (not wrapped in proxies) because D1's batch() needs its
 * own instances.
 */
export interface RoundTripCounter {
  count: number;
}

type Patchable = Record<string, (...args: unknown[]) => unknown>;

function patchStatement(stmt: D1PreparedStatement, counter: RoundTripCounter): D1PreparedStatement {
  const s = stmt as unknown as Patchable;
  const bind = stmt.bind;
  s.bind = (...values: unknown[]) => patchStatement(bind.apply(stmt, values), counter);
  for (const name of ["first", "all", "run", "raw"] as const) {
    const original = s[name]!;
    s[name] = (...args: unknown[]) => {
      counter.count += 1;
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
          counter.count += 1;
          return (target[prop] as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
