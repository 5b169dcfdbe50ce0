/**
 * Checks an answer against the served /openapi.json (docs/api-guide.md, "Discovery"): its status must be listed for
 * the operation its method and path name, and a JSON body must match that status's schema. Used for every answer
 * the suite sees by test/setup/openapi-responses.ts.
 *
 * Only answers of documented operations are checked: an unknown path or method is the router's 404/405, not an
 * operation's answer. Bodies that are not JSON are checked for their media type only.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";

const DOC_URL = "http://api.test/openapi.json";

interface Operation {
  method: string;
  template: string;
  /** Each path segment: a literal, or null for a parameter. */
  segments: (string | null)[];
  responses: Record<string, any>;
}

interface DocIndex {
  doc: any;
  operations: Operation[];
  validators: Map<string, Validator>;
}

export type FetchFn = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

let index: Promise<DocIndex> | undefined;

/** The served document, fetched once per test worker through `fetch` (the Worker itself, not the checked path). */
function loadIndex(fetch: FetchFn): Promise<DocIndex> {
  index ??= (async () => {
    const res = await fetch(DOC_URL, { headers: { "cf-connecting-ip": "100.64.0.1" } });
    if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}`);
    const doc: any = await res.json();
    const operations: Operation[] = [];
    for (const [template, item] of Object.entries<any>(doc.paths ?? {})) {
      const segments = template
        .split("/")
        .slice(1)
        .map((s) => (/^\{.+\}$/.test(s) ? null : s));
      for (const [method, op] of Object.entries<any>(item)) {
        if (!op || typeof op !== "object" || !op.responses) continue;
        operations.push({ method: method.toUpperCase(), template, segments, responses: op.responses });
      }
    }
    return { doc, operations, validators: new Map() };
  })();
  return index;
}

/** The operation Hono would route to: literal segments win over parameters, left to right. */
function findOperation(ops: Operation[], method: string, pathname: string): Operation | undefined {
  const parts = pathname.split("/").slice(1);
  let best: Operation | undefined;
  for (const op of ops) {
    if (op.method !== method || op.segments.length !== parts.length) continue;
    if (!op.segments.every((s, i) => (s === null ? parts[i] !== "" : s === parts[i]))) continue;
    if (!best || moreSpecific(op, best)) best = op;
  }
  return best;
}

function moreSpecific(a: Operation, b: Operation) {
  for (let i = 0; i < a.segments.length; i++) {
    const la = a.segments[i] !== null;
    const lb = b.segments[i] !== null;
    if (la !== lb) return la;
  }
  return false;
}

function responseFor(responses: Record<string, any>, status: number) {
  const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => responses[k] !== undefined);
  return key === undefined ? undefined : { key, response: responses[key] };
}

function mediaMatch(content: Record<string, any>, type: string) {
  const [major] = type.split("/");
  return content[type] ?? content[`${major}/*`] ?? content["*/*"];
}

function validatorFor(idx: DocIndex, cacheKey: string, schema: any) {
  let v = idx.validators.get(cacheKey);
  if (!v) {
    // Response schemas $ref "#/components/schemas/…": carried along so those pointers resolve from the root.
    v = new Validator({ ...schema, components: idx.doc.components }, "2020-12", false);
    idx.validators.set(cacheKey, v);
  }
  return v;
}

function describeErrors(errors: OutputUnit[]) {
  // The deepest errors say what is wrong; the enclosing anyOf/$ref/properties ones only repeat where.
  const leaves = errors.filter(
    (e) =>
      !["properties", "$ref", "allOf", "items", "anyOf", "oneOf", "additionalProperties", "prefixItems"].includes(
        e.keyword,
      ),
  );
  return (leaves.length ? leaves : errors)
    .slice(0, 6)
    .map((e) => `${e.instanceLocation}: ${e.error}`)
    .join("; ");
}

/**
 * What the document does not describe about one answer (empty when it does): its status is not listed for the
 * operation its method and path name, its media type is not listed, or its JSON body does not match the schema.
 * Reads `res`'s body; pass a clone.
 */
export async function undescribed(fetch: FetchFn, method: string, url: URL, res: Response): Promise<string[]> {
  const violations: string[] = [];
  await check(fetch, method, url, res, violations);
  return violations;
}

async function check(fetch: FetchFn, method: string, url: URL, res: Response, violations: string[]) {
  if (url.pathname === "/openapi.json" && method === "GET") return checkDocument(res);
  const idx = await loadIndex(fetch);
  const op = findOperation(idx.operations, method === "HEAD" ? "GET" : method, url.pathname);
  if (!op) return; // the router's own 404/405 for something the document does not name
  const where = `${method} ${url.pathname} (${op.method} ${op.template})`;
  if (res.status === 101) return void res.body?.cancel();
  const found = responseFor(op.responses, res.status);
  if (!found) {
    const body = await res.text().catch(() => "");
    violations.push(
      `${where} → ${res.status}: status not listed (lists ${Object.keys(op.responses).join(", ")}) ${body.slice(0, 200)}`,
    );
    return;
  }
  const content = found.response.content as Record<string, any> | undefined;
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (method === "HEAD" || res.status === 204 || res.status === 304 || !content || !type)
    return void res.body?.cancel();
  const media = mediaMatch(content, type);
  if (!media) {
    violations.push(
      `${where} → ${res.status}: content type ${type} not listed (lists ${Object.keys(content).join(", ")})`,
    );
    return void res.body?.cancel();
  }
  if (type === "text/event-stream" || !/[/+]json$/.test(type)) return void res.body?.cancel();
  if (!media.schema) return void res.body?.cancel();
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    violations.push(`${where} → ${res.status}: body is not JSON: ${text.slice(0, 120)}`);
    return;
  }
  const result = validatorFor(idx, `${op.method} ${op.template} ${found.key} ${type}`, media.schema).validate(body);
  if (!result.valid)
    violations.push(`${where} → ${res.status}: body does not match the schema: ${describeErrors(result.errors)}`);
}

/** /openapi.json itself is the reference, not an operation checked against itself. */
async function checkDocument(res: Response) {
  await res.body?.cancel();
}
