/**
 * docs/api-guide.md › HTTP semantics: retries, caching, replicas's round-trip budget for every operation in the OpenAPI document: each operation has cases in the shared
 * security registry (so no route can skip them), and each case sent as the tenant's owner costs at most the
 * operation's `x-d1-round-trips` (1 single-record read, 2 list or dependent read, 3 write).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant } from "../support/harness";
import { caseFactories } from "../security/registry";
import type { SecurityCase } from "../security/types";

interface Operation {
  method: string;
  path: string;
  operationId: string;
  budget: number;
  re: RegExp;
  isPublic: boolean;
}

async function operations(): Promise<Operation[]> {
  const doc = (await call("GET", "/openapi.json")).body as { paths: Record<string, Record<string, any>> };
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const re = new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`);
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: op.operationId,
        budget: op["x-d1-round-trips"],
        re,
        isPublic: Array.isArray(op.security) && op.security.length === 0,
      });
    }
  }
  return out;
}

/** Operations outside the bearer suite: discovery, signed URLs and the admin bootstrap have their own tests. */
const PUBLIC_ONLY = new Set([
  "GET /health",
  "GET /openapi.json",
  "GET /docs",
  "POST /admin/users",
  "POST /admin/shards/move",
  "POST /admin/shards/drop",
  "POST /admin/shards/abort",
]);

const matchOp = (ops: Operation[], c: SecurityCase) => {
  const path = c.path.split("?")[0]!;
  // Static segments first, so /document/all/{id} is not read as /document/{id}/…
  return ops
    .filter((o) => o.method === c.method && o.re.test(path))
    .sort((a, b) => ((b.path.match(/\{/g)?.length ?? 0) < (a.path.match(/\{/g)?.length ?? 0) ? 1 : -1))[0];
};

describe("round-trip budget", () => {
  let ops: Operation[];
  beforeAll(async () => {
    ops = await operations();
  });

  it("every bearer operation has security cases in the shared registry", async () => {
    const t = await seedTenant();
    const covered = new Set<string>();
    for (const factory of Object.values(caseFactories)) {
      for (const c of await factory(t)) {
        const op = matchOp(ops, c);
        if (op) covered.add(`${op.method} ${op.path}`);
      }
    }
    const missing = ops.filter(
      (o) => !o.isPublic && !PUBLIC_ONLY.has(`${o.method} ${o.path}`) && !covered.has(`${o.method} ${o.path}`),
    );
    expect(missing.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it("every operation declares a budget", () => {
    expect(ops.filter((o) => typeof o.budget !== "number").map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  for (const [area, factory] of Object.entries(caseFactories)) {
    it(`${area}: each case as the owner stays within its operation's budget`, async () => {
      const t: Tenant = await seedTenant();
      const cases = await factory(t);
      const over: string[] = [];
      let warmedAt = 0;
      for (const c of cases) {
        // lastUsedAt is touched at most once a minute; spend that touch outside the measured call.
        if (Date.now() - warmedAt > 45_000) {
          await call("GET", "/me", { token: t.owner.token });
          warmedAt = Date.now();
        }
        const op = matchOp(ops, c);
        if (!op) continue;
        const res = await call(c.method, c.path, {
          token: t.owner.token,
          body: c.body,
          raw: c.raw?.(),
          query: c.query,
          headers: c.headers,
        });
        const trips = Number(res.headers.get("x-d1-round-trips"));
        if (!(trips <= op.budget))
          over.push(`${op.operationId} ${c.name}: ${trips} > ${op.budget} (status ${res.status})`);
      }
      expect(over).toEqual([]);
    });
  }
});
