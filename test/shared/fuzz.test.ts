/**
 * Property-based fuzzing of every operation in the served OpenAPI document (issue 12, item 4).
 *
 * For each operation, fast-check draws requests from the operation's own schemas — valid-shaped values mixed with
 * hostile ones (huge and non-finite numbers, deep nesting, unicode, wrong types, missing and unknown members,
 * oversize strings) — with path parameters, queries and body ids replaced by real ids of the caller's tenant in a
 * share of cases. Two runs:
 * - as the owner, on the owner's own records: never a 5xx, and every 4xx carries the standard error body;
 * - as an outsider, on another tenant's records: the same, and afterwards the owner's GETs answer exactly what
 *   they answered before (a refused write changed nothing the owner can see).
 * Seeded (SEED, printed) and bounded (CASES per operation).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { ADMIN_TOKEN, BASE, call, ok, registerUser, seedTenant, type Tenant } from "../support/harness";
import { caseFactories } from "../security/registry";
import type { SecurityCase } from "../security/types";

const SEED = 20261117;
const CASES = 8;
/** Operations that are slow by nature (a real PDF conversion) or take no input get fewer cases. */
const CASES_FOR: Record<string, number> = { docToPdf: 6, getOpenApiDocument: 2, getApiReference: 2, health: 2 };
/** Requests of one operation in flight at once (D1 and R2 waits overlap; order within an operation is not relied on). */
const CONCURRENCY = 4;
/** Users acting in each role: the rate limit is per user across tokens (300 / 60 s), so the run is spread over several. */
const USERS_PER_ROLE = 5;

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  operationId: string;
  op: Schema;
  re: RegExp;
  params: string[];
}

/** A JSON fragment written verbatim into the body: values JSON.stringify cannot produce (1e400, -0, 10^30, deep nesting). */
class RawJson {
  constructor(readonly text: string) {}
}

function toJson(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (Array.isArray(v)) return `[${v.map(toJson).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.entries(v)
      .map(([k, x]) => `${JSON.stringify(k)}:${toJson(x)}`)
      .join(",")}}`;
  return JSON.stringify(v) ?? "null";
}

// ---------------------------------------------------------------------------------------------- arbitraries

const deep = (depth: number, open: string, close: string, leaf = "1") =>
  new RawJson(open.repeat(depth) + leaf + close.repeat(depth));

const hostileString = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom(
    "",
    " ",
    "\u0000",
    "\ud800",
    "../../etc/passwd",
    "%2F..%2F",
    "' OR 1=1 --",
    '"; DROP TABLE users; --',
    "<script>alert(1)</script>",
    "🧨".repeat(300),
    "\u202e\u200b\ufeff",
    "null",
    "undefined",
    "__proto__",
    "constructor",
    "9".repeat(400),
  ),
  fc.constantFrom(1000, 70_000, 1_100_000).map((n) => "é".repeat(n)),
);

const hostileNumber = fc.oneof(
  fc.constantFrom(0, -1, 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -(2 ** 63), 2 ** 64, 0.5, 1e-320),
  fc
    .constantFrom("1e400", "-1e400", "-0", "123456789012345678901234567890", "1E+2", "0.0000001")
    .map((t) => new RawJson(t)),
  fc.double(),
  fc.integer(),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  hostileNumber,
  fc.constantFrom(null, true, false, {}, [], { __proto__: { admin: true } }, { constructor: { prototype: { x: 1 } } }),
  fc.constantFrom(50, 3000, 100_000).chain((d) => fc.constantFrom(deep(d, "[", "]"), deep(d, '{"a":', "}"))),
  fc.array(fc.constant("x"), { minLength: 1000, maxLength: 3000 }),
  fc.jsonValue({ maxDepth: 3 }),
);

const ID_KEY = /(^_?id$|Id$|Ids$|^ids$)/;

interface Pools {
  /** Real ids of the caller's tenant, by path-parameter name, and all together. */
  byName: Map<string, string[]>;
  all: string[];
}

function realIdArb(pools: Pools, name?: string): fc.Arbitrary<string> {
  const named = name ? pools.byName.get(name) : undefined;
  const choices = named?.length ? named : pools.all;
  return choices.length ? fc.constantFrom(...choices) : fc.constant("01JD5Y7X9Q0000000000000000");
}

function resolve(doc: Schema, s: Schema | undefined): Schema {
  let out = s ?? {};
  for (let i = 0; out.$ref && i < 20; i++)
    out = doc.components.schemas[out.$ref.replace("#/components/schemas/", "")] ?? {};
  return out;
}

function stringArb(s: Schema): fc.Arbitrary<string> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.format === "email") return fc.emailAddress();
  if (s.format === "uri" || s.format === "url") return fc.webUrl();
  if (s.format === "date-time")
    return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  if (s.pattern) {
    try {
      return fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= (s.maxLength ?? 200));
    } catch {}
  }
  return fc.string({ unit: "grapheme", minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 30, 30) });
}

/** A value shaped by `schema`, where any member may be hostile, missing or unknown. */
function valueArb(
  doc: Schema,
  pools: Pools,
  schema: Schema | undefined,
  key: string | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  const shaped = shapedArb(doc, pools, resolve(doc, schema), key, depth);
  return fc.oneof({ weight: 5, arbitrary: shaped }, { weight: 1, arbitrary: hostileValue });
}

function shapedArb(
  doc: Schema,
  pools: Pools,
  s: Schema,
  key: string | undefined,
  depth: number,
): fc.Arbitrary<unknown> {
  if (depth > 4) return fc.constant(null);
  if ("const" in s) return fc.constant(s.const);
  const variants = s.anyOf ?? s.oneOf;
  if (variants?.length)
    return fc.oneof(...variants.map((v: Schema) => shapedArb(doc, pools, resolve(doc, v), key, depth + 1)));
  if (s.allOf?.length) {
    const merged = { type: "object", properties: {}, required: [] as string[] } as Schema;
    for (const part of s.allOf.map((p: Schema) => resolve(doc, p))) {
      Object.assign(merged.properties, part.properties ?? {});
      merged.required.push(...(part.required ?? []));
    }
    return shapedArb(doc, pools, merged, key, depth);
  }
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.enum ? ["string"] : [];
  if (types.length > 1) return fc.oneof(...types.map((t) => shapedArb(doc, pools, { ...s, type: t }, key, depth)));
  switch (types[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: Math.max(s.minimum ?? -1e6, -1e9), max: Math.min(s.maximum ?? 1e6, 1e9) });
    case "number":
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true });
    case "string": {
      const own = stringArb(s);
      return key && ID_KEY.test(key) ? fc.oneof(realIdArb(pools), own) : own;
    }
    case "array": {
      const itemKey = key && /Ids$|^ids$/.test(key) ? "id" : key;
      return fc.array(valueArb(doc, pools, s.items, itemKey, depth + 1), { maxLength: Math.min(s.maxItems ?? 4, 4) });
    }
    case "object": {
      const props: Record<string, Schema> = s.properties ?? {};
      const required = new Set<string>(s.required ?? []);
      const members = Object.fromEntries(
        Object.entries(props).map(([k, v]) => [k, valueArb(doc, pools, v, k, depth + 1)]),
      );
      const extra =
        s.additionalProperties && typeof s.additionalProperties === "object"
          ? fc.dictionary(
              fc.oneof(realIdArb(pools), fc.string({ maxLength: 10 })),
              valueArb(doc, pools, s.additionalProperties, undefined, depth + 1),
              { maxKeys: 3 },
            )
          : fc.constant({});
      const unknown = fc.dictionary(fc.string({ maxLength: 10 }), hostileValue, { maxKeys: 1 });
      return fc
        .tuple(
          fc.record(members, { requiredKeys: [] }),
          fc.boolean(), // keep every required member (usually) or drop some
          extra,
          fc.oneof({ weight: 6, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: unknown }),
        )
        .map(([rec, dropSome, add, unk]) => {
          const out: Record<string, unknown> = { ...add, ...(rec as object) };
          if (!dropSome) for (const k of required) if (!(k in out)) out[k] = undefined;
          for (const [k, v] of Object.entries(out)) if (v === undefined) delete out[k];
          return { ...unk, ...out };
        });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

interface Drawn {
  path: string;
  query: Record<string, string>;
  contentType?: string;
  body?: string | Uint8Array;
}

function requestArb(doc: Schema, o: Operation, pools: Pools): fc.Arbitrary<Drawn> {
  const parameters: Schema[] = (o.op.parameters ?? []).map((p: Schema) => (p.$ref ? resolve(doc, p) : p));
  const pathArbs = o.params.map((name) => {
    const p = parameters.find((x) => x.in === "path" && x.name === name);
    return fc.oneof(
      { weight: 3, arbitrary: realIdArb(pools, name) },
      { weight: 1, arbitrary: shapedArb(doc, pools, resolve(doc, p?.schema), name, 0).map(String) },
      { weight: 1, arbitrary: hostileString.filter((x) => x.length < 5000) },
    );
  });
  const queryArbs: Record<string, fc.Arbitrary<string | undefined>> = {};
  for (const p of parameters.filter((x) => x.in === "query")) {
    const s = resolve(doc, p.schema);
    queryArbs[p.name] = fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      {
        weight: 3,
        arbitrary: shapedArb(doc, pools, s, p.name, 0).map((v) => (typeof v === "string" ? v : JSON.stringify(v))),
      },
      { weight: 1, arbitrary: hostileValue.map((v) => (typeof v === "string" ? v : toJson(v)).slice(0, 10_000)) },
    );
  }
  const content: Record<string, Schema> = o.op.requestBody?.content ?? {};
  const types = Object.keys(content);
  let bodyArb: fc.Arbitrary<Pick<Drawn, "contentType" | "body">> = fc.constant({});
  if (types.includes("application/json")) {
    const shaped = valueArb(doc, pools, content["application/json"]!.schema, undefined, 0).map((v) => ({
      contentType: "application/json",
      body: toJson(v),
    }));
    bodyArb = fc.oneof(
      { weight: 8, arbitrary: shaped },
      {
        weight: 1,
        arbitrary: fc
          .constantFrom("{", "", "[]", '{"a":1}{', "\u0000", '{"__proto__":{"x":1}}')
          .map((b) => ({ contentType: "application/json", body: b })),
      },
      { weight: 1, arbitrary: shaped.map((x) => ({ ...x, contentType: "text/plain" })) },
    );
  } else if (types.length) {
    bodyArb = fc.record({
      contentType: fc.constantFrom(...types, "application/json", "text/plain"),
      body: fc.oneof(
        fc.uint8Array({ maxLength: 4096 }),
        fc.constantFrom(new Uint8Array(0), new TextEncoder().encode("PK\u0003\u0004garbage")),
      ),
    });
  }
  return fc.tuple(fc.tuple(...pathArbs), fc.record(queryArbs, { requiredKeys: [] }), bodyArb).map(([values, q, b]) => {
    let path = o.path;
    o.params.forEach((name, i) => (path = path.replace(`{${name}}`, encodeSegment(values[i] as string))));
    const query: Record<string, string> = {};
    for (const [k, v] of Object.entries(q)) if (v !== undefined) query[k] = v as string;
    return { path, query, ...b };
  });
}

/** encodeURIComponent, except that a lone surrogate becomes the (invalid UTF-8) bytes it would have had. */
function encodeSegment(v: string): string {
  return Array.from(v, (ch) => {
    try {
      return encodeURIComponent(ch);
    } catch {
      return "%ED%A0%80";
    }
  }).join("");
}

// ---------------------------------------------------------------------------------------------- the run

async function operations(): Promise<{ doc: Schema; ops: Operation[] }> {
  const doc = (await call("GET", "/openapi.json")).body as Schema;
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
    for (const [method, op] of Object.entries(item)) {
      const re = new RegExp(`^${path.replace(/\{[^}]+\}/g, "([^/]+)")}$`);
      const params = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      ops.push({ method: method.toUpperCase(), path, operationId: op.operationId, op, re, params });
    }
  }
  // Reads first, deletes last, so the owner's run does not remove the records the other operations aim at.
  const rank = (m: string) => ({ GET: 0, POST: 1, PUT: 1, PATCH: 1, DELETE: 2 })[m] ?? 1;
  ops.sort((a, b) => rank(a.method) - rank(b.method));
  return { doc, ops };
}

/** The operation a concrete request path belongs to: static segments win over parameters (/document/all/{id}). */
function matchOp(ops: Operation[], method: string, path: string) {
  return ops.filter((o) => o.method === method && o.re.test(path)).sort((a, b) => a.params.length - b.params.length)[0];
}

async function tenantWithCases(ops: Operation[]): Promise<{ t: Tenant; cases: SecurityCase[]; pools: Pools }> {
  const t = await seedTenant();
  const cases: SecurityCase[] = [];
  for (const factory of Object.values(caseFactories)) cases.push(...(await factory(t)));
  const byName = new Map<string, Set<string>>();
  const all = new Set<string>([
    t.workspaceId,
    t.organizationId,
    t.projectId,
    t.folderId,
    t.docId,
    t.doc2Id,
    t.owner.id,
  ]);
  for (const c of cases) {
    const path = c.path.split("?")[0]!;
    const o = matchOp(ops, c.method, path);
    if (!o) continue;
    const values = o.re.exec(path)!.slice(1).map(decodeURIComponent);
    o.params.forEach((name, i) => {
      if (!byName.has(name)) byName.set(name, new Set());
      byName.get(name)!.add(values[i]!);
      all.add(values[i]!);
    });
  }
  const pools: Pools = { byName: new Map([...byName].map(([k, v]) => [k, [...v]])), all: [...all] };
  return { t, cases, pools };
}

/**
 * The owner's token and those of co-admins (workspace and organization admins of the tenant), so the run stays
 * under the per-user rate limit (300 / 60 s, all of a user's tokens together) without lifting it.
 */
async function ownerTokens(t: Tenant): Promise<string[]> {
  const out = [t.owner.token];
  for (let i = 1; i < USERS_PER_ROLE; i++) {
    const co = await registerUser(`Co-admin ${i}`);
    await ok("POST", `/workspace/${t.workspaceId}/collaborator`, {
      token: t.owner.token,
      body: { email: co.email, role: "admin" },
    });
    await ok("POST", `/organization/${t.organizationId}/member`, {
      token: t.owner.token,
      body: { email: co.email, role: "admin" },
    });
    out.push(co.token);
  }
  return out;
}

/** The outsider's token and those of other users outside the tenant (the rate limit is per user). */
async function outsiderTokens(t: Tenant): Promise<string[]> {
  const out = [t.outsider.token];
  for (let i = 1; i < USERS_PER_ROLE; i++) out.push((await registerUser(`Outsider ${i}`)).token);
  return out;
}

interface Finding {
  operationId: string;
  status: number;
  request: string;
  response: string;
}

function violation(o: Operation, status: number, type: string, text: string): string | null {
  if (status >= 500) return `5xx`;
  if (status < 400) return null;
  // E10 answers a missing document with its documented not-found shape (specification E10).
  if (o.operationId === "getDocument" && status === 404 && /"isNotFound":true/.test(text)) return null;
  const documented = o.op.responses?.[String(status)]?.content;
  if (documented && !documented["application/json"]) return null; // a non-JSON route's own error representation
  if (!type.includes("application/json")) return `4xx without a JSON error body (${type || "no content type"})`;
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return "4xx body is not JSON";
  }
  const keysOk =
    body && typeof body === "object" && Object.keys(body).every((k) => ["error", "message", "details"].includes(k));
  const detailsOk =
    body?.details === undefined ||
    (Array.isArray(body.details) &&
      body.details.every((d: any) => typeof d?.path === "string" && typeof d?.message === "string"));
  if (!keysOk || typeof body.error !== "string" || typeof body.message !== "string" || !detailsOk)
    return "4xx without the standard error body";
  return null;
}

async function fuzz(doc: Schema, ops: Operation[], pools: Pools, tokens: string[], label: string) {
  const findings: Finding[] = [];
  const statuses: Record<string, number> = {};
  let sent = 0;
  const timings: [string, number][] = [];
  for (const [index, o] of ops.entries()) {
    const numRuns = CASES_FOR[o.operationId] ?? CASES;
    // Each operation has its own seed derived from the run's, so adding an operation does not reshuffle the others.
    const drawn = fc.sample(requestArb(doc, o, pools), {
      seed: SEED + index * 7919 + (label === "outsider" ? 1 : 0),
      numRuns,
    });
    const started = Date.now();
    const one = async (d: Drawn) => {
      const token = o.operationId === "createUser" && label === "owner" ? ADMIN_TOKEN : tokens[sent % tokens.length]!;
      sent += 1;
      const url = new URL(d.path, BASE);
      for (const [k, v] of Object.entries(d.query))
        url.searchParams.set(k, (v as string & { toWellFormed(): string }).toWellFormed());
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      if (d.contentType) headers["content-type"] = d.contentType;
      let status: number;
      let type = "";
      let text = "";
      try {
        const res = await SELF.fetch(url, { method: o.method, headers, body: o.method === "GET" ? undefined : d.body });
        status = res.status;
        type = res.headers.get("content-type") ?? "";
        text = type.includes("json") || status >= 400 ? await res.text() : (await res.arrayBuffer(), "");
      } catch (err) {
        status = 599;
        text = String(err);
      }
      statuses[status] = (statuses[status] ?? 0) + 1;
      const problem = violation(o, status, type, text);
      if (problem) {
        const body = typeof d.body === "string" ? d.body.slice(0, 300) : d.body ? `<${d.body.length} bytes>` : "";
        findings.push({
          operationId: o.operationId,
          status,
          request: `${o.method} ${url.pathname.slice(0, 200)}${url.search.slice(0, 200)} [${d.contentType ?? ""}] ${body}`,
          response: `${problem}: ${text.slice(0, 300)}`,
        });
      }
    };
    for (let i = 0; i < drawn.length; i += CONCURRENCY) await Promise.all(drawn.slice(i, i + CONCURRENCY).map(one));
    timings.push([o.operationId, Date.now() - started]);
  }
  console.log(
    timings
      .sort((a, b) => b[1] - a[1])
      .slice(0, 15)
      .map(([k, v]) => `${k} ${v}ms`)
      .join(", "),
  );
  console.log(
    `fuzz (${label}): seed ${SEED}, ${ops.length} operations, up to ${CASES} cases each, ${sent} requests; statuses ${JSON.stringify(statuses)}`,
  );
  return findings;
}

/** What the owner sees: every GET of the registry, with per-call noise (token use times, signed URLs) removed. */
async function ownerView(cases: SecurityCase[], token: string) {
  const out: Record<string, unknown> = {};
  for (const c of cases.filter((x) => x.method === "GET")) {
    const res = await call("GET", c.path, { token, query: c.query });
    out[c.path] = {
      status: res.status,
      body: res.body instanceof ArrayBuffer ? res.body.byteLength : normalize(res.body),
    };
  }
  return out;
}

/**
 * The owner's view once the tenant's own background work (queued webhook deliveries of the seeded automations,
 * for instance) has finished: two views a moment apart that agree.
 */
async function settledOwnerView(cases: SecurityCase[], token: string) {
  // A queued run or a delivery still waiting for the Queue consumer can look unchanged across two views (the
  // consumer's batch window is longer than the pause), so work in flight counts as unsettled too.
  const inFlight = (v: unknown) => /"status":"(pending|queued|running)"/.test(JSON.stringify(v));
  let view = await ownerView(cases, token);
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 500));
    const next = await ownerView(cases, token);
    if (JSON.stringify(next) === JSON.stringify(view) && !inFlight(next)) return next;
    view = next;
  }
  return view;
}

function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v)
        .filter(([k]) => k !== "lastUsedAt")
        .map(([k, x]) => [k, normalize(x)]),
    );
  if (typeof v === "string" && /[?&](signature|expires)=/.test(v)) return "<signed url>";
  return v;
}

describe("fuzzing every operation of /openapi.json", () => {
  let doc: Schema;
  let ops: Operation[];

  beforeAll(async () => {
    ({ doc, ops } = await operations());
    console.log(
      `fuzz: seed ${SEED} (change SEED in test/shared/fuzz.test.ts to explore; the failing request is printed in full)`,
    );
  });

  it(
    "as the owner on the owner's own records: no 5xx, the standard error body on every 4xx",
    { timeout: 180_000 },
    async () => {
      const { t, pools } = await tenantWithCases(ops);
      const tokens = await ownerTokens(t);
      const findings = await fuzz(doc, ops, pools, tokens, "owner");
      expect(findings).toEqual([]);
    },
  );

  it(
    "as an outsider on another tenant's records: no 5xx, standard errors, nothing the owner sees changes",
    { timeout: 180_000 },
    async () => {
      const { t, cases, pools } = await tenantWithCases(ops);
      const tokens = await outsiderTokens(t);
      const before = await settledOwnerView(cases, t.owner.token);
      const findings = await fuzz(doc, ops, pools, tokens, "outsider");
      const after = await settledOwnerView(cases, t.owner.token);
      expect(findings).toEqual([]);
      const changed = Object.keys(before).filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
      expect(Object.fromEntries(changed.map((k) => [k, { before: before[k], after: after[k] }]))).toEqual({});
    },
  );
});
