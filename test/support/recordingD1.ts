/**
 * A D1 database that records what is asked of it: every D1 call (a statement run, a batch), the bound parameters of
 * every statement and the size of every batch. For tests that bound the work a move does, through the real binding.
 */
export interface D1Record {
  calls: number;
  params: number[];
  batches: number[];
}

export function newD1Record(): D1Record {
  return { calls: 0, params: [], batches: [] };
}

/** `db`, with what it is asked recorded in `record` (several databases may share one record). */
export function recordingD1(db: D1Database, record: D1Record): D1Database {
  // The runtime's batch needs its own statements, so each proxy maps back to the statement it wraps.
  const real = new WeakMap<object, D1PreparedStatement>();
  const call = (target: object, prop: string | symbol) => {
    const value = Reflect.get(target, prop) as unknown;
    return typeof value === "function"
      ? (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args)
      : value;
  };
  const statement = (stmt: D1PreparedStatement): D1PreparedStatement => {
    const proxy = new Proxy(stmt, {
      get(target, prop) {
        if (prop === "bind")
          return (...args: unknown[]) => (record.params.push(args.length), statement(target.bind(...args)));
        if (prop === "first" || prop === "run" || prop === "all" || prop === "raw") record.calls++;
        return call(target, prop);
      },
    });
    real.set(proxy, stmt);
    return proxy;
  };
  return new Proxy(db, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => statement(target.prepare(sql));
      if (prop === "batch") {
        return (stmts: D1PreparedStatement[]) => {
          record.batches.push(stmts.length);
          record.calls++;
          return target.batch(stmts.map((st) => real.get(st) ?? st));
        };
      }
      return call(target, prop);
    },
  });
}
