/** The request path of docs/api-guide.md › HTTP semantics: retries, caching, replicas through the real Worker: round trips, bookmarks, ETags, Idempotency-Key. */
import { describe, expect, it, beforeAll } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE, call, ok, seedTenant, type Tenant } from "../support/harness";

const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    // Spend each token's first use, so lastUsedAt is not due in the measured calls.
    await Promise.all([t.owner, t.outsider].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E10 costs one D1 round trip: authentication, access and data in one batch", async () => {
    const res = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBe(1);
    const outsider = await call("GET", `/document/${t.docId}`, { token: t.outsider.token });
    expect(outsider.status).toBe(404);
    expect(trips(outsider.headers)).toBe(1);
  });

  it("a bad token on a batched read is 401 and returns no data", async () => {
    const res = await call("GET", `/document/${t.docId}`, { token: "cws_nope" });
    expect(res.status).toBe(401);
    expect(JSON.stringify(res.body)).not.toContain(t.docId);
  });

  it("every response carries x-d1-bookmark, and a bookmark sent back is honoured", async () => {
    const res = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
    const bookmark = res.headers.get("x-d1-bookmark");
    expect(bookmark).toBeTruthy();
    const again = await call("GET", `/document/${t.docId}`, {
      token: t.owner.token,
      headers: { "x-d1-bookmark": bookmark! },
    });
    expect(again.status).toBe(200);
    const garbage = await call("GET", `/document/${t.docId}`, {
      token: t.owner.token,
      headers: { "x-d1-bookmark": "not a bookmark!" },
    });
    expect(garbage.status).toBe(200);
  });

  it("a response that needed no D1 query still carries x-d1-bookmark (401 without a token, 404, 405, /health, /openapi.json)", async () => {
    for (const [method, path, token] of [
      ["GET", `/document/${t.docId}`, null],
      ["GET", "/no/such/route", null],
      ["PUT", "/openapi.json", null],
      ["GET", "/health", null],
      ["GET", "/openapi.json", null],
    ] as const) {
      const res = await SELF.fetch(`${BASE}${path}`, {
        method,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
      await res.arrayBuffer();
      expect(res.headers.get("x-d1-bookmark"), `${method} ${path} (${res.status})`).toBeTruthy();
      expect(res.headers.get("x-d1-round-trips"), `${method} ${path}`).toBe("0");
    }
    // A bookmark the client sent is answered back as it is.
    const sent = (await call("GET", `/document/${t.docId}`, { token: t.owner.token })).headers.get("x-d1-bookmark")!;
    const echoed = await SELF.fetch(`${BASE}/health`, { headers: { "x-d1-bookmark": sent } });
    expect(echoed.headers.get("x-d1-bookmark")).toBe(sent);
  });

  it("E10 carries a strong ETag and answers 304 on If-None-Match", async () => {
    const res = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await SELF.fetch(`${BASE}/document/${t.docId}`, {
      headers: { authorization: `Bearer ${t.owner.token}`, "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expect(again.headers.get("etag")).toBe(etag);
  });

  describe("Idempotency-Key", () => {
    const post = (key: string, name: string, token = t.owner.token) =>
      call("POST", "/document", {
        token,
        headers: { "idempotency-key": key },
        body: { projectId: t.projectId, name, type: "DOCUMENT" },
      });

    it("replays the first response and creates nothing twice", async () => {
      const key = `k-${crypto.randomUUID()}`;
      const first = await post(key, "Once");
      expect(first.status).toBe(200);
      const second = await post(key, "Once");
      expect(second.status).toBe(200);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      expect(second.body).toEqual(first.body);
      const list = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
      expect(list.data.filter((d: { name: string }) => d.name === "Once")).toHaveLength(1);
    });

    it("the same key with a different body is 422", async () => {
      const key = `k-${crypto.randomUUID()}`;
      await post(key, "A");
      const res = await post(key, "B");
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("UnprocessableEntityError");
    });

    it("keys are per caller", async () => {
      const key = `k-${crypto.randomUUID()}`;
      expect((await post(key, "Mine")).status).toBe(200);
      const other = await post(key, "Mine", t.outsider.token);
      expect(other.headers.get("idempotent-replayed")).toBeNull();
      expect(other.status).toBe(404);
    });

    it("two concurrent requests with one key: one runs, the other is replayed or 409, one document exists", async () => {
      const key = `k-${crypto.randomUUID()}`;
      const name = `Race ${key}`;
      const results = await Promise.all([post(key, name), post(key, name)]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses[0]).toBe(200);
      expect([200, 409]).toContain(statuses[1]);
      const list = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
      expect(list.data.filter((d: { name: string }) => d.name === name)).toHaveLength(1);
    });

    it("the key's claim rides in the first read batch with the token: a keyed create costs one round trip more (the stored response), 3 in all", async () => {
      const plain = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "plain", type: "DOCUMENT" },
      });
      const keyed = await post(`k-${crypto.randomUUID()}`, "keyed");
      expect(keyed.status).toBe(200);
      expect(trips(keyed.headers)).toBe(trips(plain.headers) + 1);
      // Token, claim and the service's reads share one batch: a keyed create stays within a write's budget of 3.
      expect(trips(plain.headers)).toBe(2);
      expect(trips(keyed.headers)).toBe(3);
    });

    it("a request refused at authentication (an expired token) frees the key it claimed: the user's retry with another token runs", async () => {
      const brief = await ok("POST", "/token", {
        token: t.owner.token,
        body: { name: "brief", expiresAt: Date.now() + 1000 },
      });
      await new Promise((r) => setTimeout(r, 1300));
      // A batched POST (the claim rides in the service's first read) and an eagerly authenticated one.
      const requests = [
        {
          path: "/document",
          body: { projectId: t.projectId, name: `Refused ${crypto.randomUUID()}`, type: "DOCUMENT" },
        },
        { path: "/organization", body: { name: `Refused org ${crypto.randomUUID()}` } },
      ];
      for (const { path, body } of requests) {
        const key = `k-${crypto.randomUUID()}`;
        const refused = await call("POST", path, {
          token: brief.data.token,
          headers: { "idempotency-key": key },
          body,
        });
        expect(refused.status).toBe(401);
        const retried = await call("POST", path, { token: t.owner.token, headers: { "idempotency-key": key }, body });
        expect(retried.status).toBe(200);
        expect(retried.headers.get("idempotent-replayed")).toBeNull();
      }
    });

    it("a bad token with a malformed key is 401: authentication is checked before the key (docs/api-guide.md › Conventions)", async () => {
      const bad = "x".repeat(256);
      // A batched POST (the claim rides in the service's first read) and an eagerly authenticated one.
      for (const [path, body] of [
        ["/document", { projectId: t.projectId, name: "Bad token", type: "DOCUMENT" }],
        ["/organization", { name: "Bad token" }],
      ] as const) {
        const res = await call("POST", path, {
          token: "cws_bogus0000000000000000000000000000000000",
          headers: { "idempotency-key": bad },
          body,
        });
        expect(res.status, path).toBe(401);
        expect(res.body.error).toBe("UnauthorizedError");
      }
    });

    it("a malformed key is 400", async () => {
      const res = await post("\u0001bad", "X");
      expect(res.status).toBe(400);
    });
  });
});
