/**
 * CORS for browser apps (docs/api-guide.md › Browser clients (CORS)): vitest.config.ts allows http://app.test and
 * http://localhost:5173. A listed origin gets its own origin back and the exposed headers on every API answer, error
 * answers included; a preflight names the allowed methods and headers and is cached; any other origin gets no CORS
 * header at all. The reader site and /docs keep their own headers. The browser's side of it is scripts/browser-test.mjs.
 */
import { describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { allowedCorsOrigins, corsOriginProblems } from "../../src/http/cors";
import { BASE, call, expectError, ok, registerUser, seedTenant } from "../support/harness";
import { connect, openSocket } from "../support/collab-peer";

const APP = "http://app.test";
const ELSEWHERE = "http://evil.test";
const EXPOSED = ["etag", "retry-after", "x-d1-bookmark", "location", "content-disposition"];

function expectAllowed(headers: Headers, origin = APP) {
  expect(headers.get("access-control-allow-origin")).toBe(origin);
  expect(headers.get("vary") ?? "").toMatch(/\borigin\b/i);
  const exposed = (headers.get("access-control-expose-headers") ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim());
  for (const h of EXPOSED) expect(exposed).toContain(h);
  // Bearer-only: a browser never sends cookies or HTTP auth along.
  expect(headers.get("access-control-allow-credentials")).toBeNull();
}

function expectNoCors(headers: Headers) {
  for (const [name] of headers) expect(name, `${name} on a refused origin`).not.toMatch(/^access-control-/);
}

const preflight = (path: string, origin: string, method: string, requestHeaders: string) =>
  SELF.fetch(`${BASE}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": requestHeaders,
      "cf-connecting-ip": "100.64.9.9",
    },
  });

describe("CORS: allowed origins", () => {
  it("answers a listed origin with that origin and the exposed headers; reads and writes alike", async () => {
    const u = await registerUser("Cors App");
    const me = await call("GET", "/me", { token: u.token, headers: { origin: APP } });
    expect(me.status).toBe(200);
    expectAllowed(me.headers);
    const second = await call("GET", "/me", { token: u.token, headers: { origin: "http://localhost:5173" } });
    expectAllowed(second.headers, "http://localhost:5173");
    const created = await call("POST", "/project", {
      token: u.token,
      headers: { origin: APP },
      body: { workspaceId: u.workspaceId, name: "From a browser" },
    });
    expect(created.status).toBe(200);
    expectAllowed(created.headers);
    // Discovery is for browsers too (a client reads the document before it has a token).
    expectAllowed((await call("GET", "/openapi.json", { headers: { origin: APP } })).headers);
    expectAllowed((await call("GET", "/health", { headers: { origin: APP } })).headers);
  });

  it("error answers carry CORS for a listed origin too: 400, 401, 404, 405 and 429", async () => {
    const u = await registerUser("Cors Errors");
    const headers = { origin: APP };
    const invalid = await call("POST", "/project", { token: u.token, headers, body: { name: 7 } });
    expectError(invalid, 400, "ValidationError");
    expectAllowed(invalid.headers);
    const unauthorized = await call("GET", "/me", { headers });
    expectError(unauthorized, 401, "UnauthorizedError");
    expectAllowed(unauthorized.headers);
    const missing = await call("GET", "/document/doc_00000000000000000000000000", { token: u.token, headers });
    expect(missing.status).toBe(404);
    expectAllowed(missing.headers);
    const noRoute = await call("GET", "/no/such/route", { headers });
    expectError(noRoute, 404, "NotFoundError");
    expectAllowed(noRoute.headers);
    const wrongMethod = await call("PATCH", "/me", { token: u.token, headers });
    expect(wrongMethod.status).toBe(405);
    expectAllowed(wrongMethod.headers);
    // Failed authentications from one address: the 429 a browser app sees must be readable, Retry-After included.
    const ip = "198.51.100.77";
    let limited = null;
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await call("GET", "/me", { token: `cws_nope${i}`, headers: { ...headers, "cf-connecting-ip": ip } });
      if (res.status === 429) limited = res;
    }
    expect(limited, "no 429 within 130 unknown tokens").not.toBeNull();
    expectError(limited!, 429, "RateLimitedError");
    expectAllowed(limited!.headers);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("answers a preflight with the methods, the request headers a client sends and a cache lifetime", async () => {
    const t = await seedTenant();
    const res = await preflight(
      `/document/${t.docId}/content`,
      APP,
      "PUT",
      "authorization, content-type, if-match, idempotency-key, if-none-match, x-d1-bookmark",
    );
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe(APP);
    const methods = (res.headers.get("access-control-allow-methods") ?? "").split(",");
    for (const m of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"]) expect(methods).toContain(m);
    const allowed = (res.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(",");
    for (const h of ["authorization", "content-type", "idempotency-key", "if-match", "if-none-match", "x-d1-bookmark"])
      expect(allowed).toContain(h);
    expect(res.headers.get("access-control-max-age")).toBe("600");
    expect(res.headers.get("vary") ?? "").toMatch(/\borigin\b/i);
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    // A preflight needs no token: browsers never send one with it.
    expect(res.headers.get("www-authenticate")).toBeNull();
  });

  it("the collaboration ticket is a cross-origin POST; the WebSocket that uses it opens with the page's Origin", async () => {
    const t = await seedTenant();
    const pre = await preflight(`/document/${t.docId}/collab/ticket`, APP, "POST", "authorization");
    expect(pre.status).toBe(204);
    expect(pre.headers.get("access-control-allow-origin")).toBe(APP);
    const issued = await call("POST", `/document/${t.docId}/collab/ticket`, {
      token: t.editor.token,
      headers: { origin: APP },
    });
    expect(issued.status, JSON.stringify(issued.body)).toBe(200);
    expectAllowed(issued.headers);
    const res = await openSocket(t.docId, { ticket: issued.body.data.ticket, headers: { origin: APP } });
    expect(res.status).toBe(101);
    expect(res.webSocket).toBeTruthy();
    res.webSocket!.accept();
    res.webSocket!.close(1000, "bye");
    // And an ordinary peer still connects (no Origin at all).
    const peer = await connect(t.docId, { token: t.owner.token });
    peer.close();
  });
});

describe("CORS: other origins and own-header pages", () => {
  it("gives an unlisted origin no CORS header, on answers and preflights alike", async () => {
    const u = await registerUser("Cors Refused");
    const me = await call("GET", "/me", { token: u.token, headers: { origin: ELSEWHERE } });
    // The request itself is served (CORS is the browser's check); the browser refuses to hand the answer over.
    expect(me.status).toBe(200);
    expectNoCors(me.headers);
    expect(me.headers.get("vary") ?? "").toMatch(/\borigin\b/i);
    const pre = await preflight("/me", ELSEWHERE, "GET", "authorization");
    expect(pre.status).not.toBe(204);
    expectNoCors(pre.headers);
    // An origin that differs from a listed one only in scheme, port or case of a path is another origin.
    for (const origin of ["https://app.test", "http://app.test:8080", "http://sub.app.test", "null"]) {
      expectNoCors((await call("GET", "/me", { token: u.token, headers: { origin } })).headers);
      expectNoCors((await preflight("/me", origin, "GET", "authorization")).headers);
    }
    // Without Origin (curl, server to server) nothing changes.
    expectNoCors((await call("GET", "/me", { token: u.token })).headers);
  });

  it("the reader site and /docs keep their own headers, even for a listed origin", async () => {
    const site = await SELF.fetch(`${BASE}/site/no-such-portal`, { headers: { origin: APP } });
    expect(site.status).toBe(404);
    expectNoCors(site.headers);
    const docs = await SELF.fetch(`${BASE}/docs`, { headers: { origin: APP } });
    expect(docs.status).toBe(200);
    expectNoCors(docs.headers);
    expect(docs.headers.get("content-security-policy")).toBeTruthy();
  });

  it("CORS_ALLOWED_ORIGINS takes exact origins only: `*`, paths and other schemes allow nothing", () => {
    expect([...allowedCorsOrigins({ CORS_ALLOWED_ORIGINS: " https://a.example , http://127.0.0.1:5173/ ,*" })]).toEqual(
      ["https://a.example", "http://127.0.0.1:5173"],
    );
    expect(allowedCorsOrigins({ CORS_ALLOWED_ORIGINS: "*" }).size).toBe(0);
    expect(allowedCorsOrigins({}).size).toBe(0);
    expect(
      corsOriginProblems("*, https://a.example/app, ftp://x.example, https://ok.example, https://HOST.example"),
    ).toEqual(["*", "https://a.example/app", "ftp://x.example", "https://HOST.example"]);
    expect(corsOriginProblems(undefined)).toEqual([]);
  });
});

describe("CORS and ETag: a browser app can read what it needs for a conditional write", () => {
  it("exposes ETag on a content read, so If-Match can be sent back from the page", async () => {
    const t = await seedTenant();
    const read = await call("GET", `/document/${t.docId}/content`, { token: t.owner.token, headers: { origin: APP } });
    expect(read.status).toBe(200);
    expect(read.headers.get("etag")).toBeTruthy();
    expectAllowed(read.headers);
    const put = await ok("PUT", `/document/${t.docId}/content`, {
      token: t.owner.token,
      headers: { origin: APP, "if-match": read.headers.get("etag")! },
      body: { blocks: [] },
    });
    expect(put.data.version).toBeGreaterThan(0);
  });
});

describe("CORS in /openapi.json", () => {
  it("declares Access-Control-Allow-Origin, the exposed headers and Vary on every API response, and not on /docs or the WebSocket upgrade", async () => {
    const doc = (await call("GET", "/openapi.json")).body;
    expect(Object.keys(doc.components.headers)).toEqual(
      expect.arrayContaining(["Access-Control-Allow-Origin", "Access-Control-Expose-Headers", "Vary"]),
    );
    expect(doc.components.headers["Access-Control-Expose-Headers"].schema.const.split(",")).toEqual([
      "ETag",
      "Retry-After",
      "x-d1-bookmark",
      "Location",
      "Content-Disposition",
    ]);
    let checked = 0;
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const own = path === "/docs" || "101" in op.responses;
        for (const [status, res] of Object.entries<any>(op.responses)) {
          const where = `${method.toUpperCase()} ${path} ${status}`;
          if (own) expect(res.headers?.["Access-Control-Allow-Origin"], where).toBeUndefined();
          else {
            expect(res.headers?.["Access-Control-Allow-Origin"], where).toEqual({
              $ref: "#/components/headers/Access-Control-Allow-Origin",
            });
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
    // A response's own header declarations stay (429's Retry-After).
    expect(doc.paths["/me"].get.responses["429"].headers["Retry-After"]).toBeTruthy();
  });
});
