/** getApiReference: GET /docs (src/routes/discovery/health.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, BASE } from "../../support/harness";
import { env, SELF } from "cloudflare:test";

describe("discovery", () => {
  beforeAll(async () => {
    const res = await call("GET", "/openapi.json");
    expect(res.status).toBe(200);
  });

  it("GET /docs answers an HTML page without a token", async () => {
    const res = await call("GET", "/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = new TextDecoder().decode(res.body as ArrayBuffer);
    expect(html).toMatch(/<html/i);
    expect(html).toContain("/openapi.json");
  });
});

/** docs/api-guide.md › Discovery: /docs works offline — the page and the reference UI's bundle both come from this service. */
describe("/docs offline", () => {
  it("the page references no other origin and forbids one by its Content-Security-Policy", async () => {
    const res = await SELF.fetch(`${BASE}/docs`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i);
    expect(html).toContain('src="/docs/scalar.js"');
    expect(html).toContain('"withDefaultFonts":false');
    expect(html).toContain('"telemetry":false');
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("connect-src 'self'");
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(html).toContain(`nonce="${nonce}"`);
  });

  // Static assets answer before the Worker runs (wrangler dev and production; scripts/browser-test.mjs loads /docs
  // in a browser with every other origin blocked). SELF reaches the Worker only, so the collection is read here
  // through its binding.
  it("has the reference UI's bundle among the Worker's static assets", async () => {
    const res = await env.ASSETS!.fetch(`${BASE}/docs/scalar.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/javascript/);
    const js = await res.text();
    expect(js.length).toBeGreaterThan(1_000_000);
    expect(js).toContain("createApiReference");
  });
});
