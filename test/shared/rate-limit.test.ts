import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";
import { clientAddress, normalizeAddress } from "../../src/http/clientAddress";
import { BASE, call, expectError, ok, registerUser } from "../support/harness";

describe("per-user rate limit, all of a user's tokens together (docs/api-guide.md, Limits)", () => {
  it("answers 429 with Retry-After once a user's tokens together spend 300 requests a minute", async () => {
    const u = await registerUser("Busy");
    const tokens = [u.token];
    for (let i = 0; i < 4; i++)
      tokens.push((await ok("POST", "/token", { token: u.token, body: { name: `extra ${i}` } })).data.token);
    // The limiter counts in fixed 60 s windows: a run that straddles a window boundary may pass up to twice the
    // budget before its first 429, never less than one budget (issuing the tokens above spent 4 requests of it).
    let allowed = 0;
    let limited = null;
    for (let i = 0; i < 700 && !limited; i++) {
      const res = await call("GET", "/me", { token: tokens[i % tokens.length] });
      if (res.status === 200) allowed += 1;
      else limited = res;
    }
    expect(limited, "no 429 within 700 requests over 5 tokens").not.toBeNull();
    expect(allowed).toBeGreaterThanOrEqual(296);
    expect(allowed).toBeLessThan(600);
    expectError(limited!, 429, "RateLimitedError");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Every token of the user is out of budget now: a new token is no way around it.
    for (const token of tokens) expectError(await call("GET", "/me", { token }), 429, "RateLimitedError");
    // Another user keeps their own budget.
    const other = await registerUser("Calm");
    expect((await call("GET", "/me", { token: other.token })).status).toBe(200);
    // A keyed POST refused by the limit leaves its Idempotency-Key free (nothing stays claimed for 24 hours).
    const key = `k-${crypto.randomUUID()}`;
    const refused = await call("POST", "/organization", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { name: "Limited org" },
    });
    expectError(refused, 429, "RateLimitedError");
    const kept = await env.DB.prepare("SELECT COUNT(*) AS n FROM idempotency_keys WHERE user_id = ? AND key = ?")
      .bind(u.id, key)
      .first<{ n: number }>();
    expect(kept!.n).toBe(0);
  });
});

describe("failed-authentication limit per client address (docs/api-guide.md, Limits)", () => {
  // The token shape (cws_<user id>_<40>), with a user id and secret nobody holds.
  const randomToken = () =>
    `cws_${crypto.randomUUID().replace(/-/g, "").slice(0, 26).toUpperCase()}_${Array.from(crypto.getRandomValues(new Uint8Array(40)), (b) => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456789"[b % 46]).join("")}`;

  it("answers 429 with Retry-After after 60 unknown tokens a minute from one address, and only for that address", async () => {
    const ip = "198.51.100.7";
    let unauthorized = 0;
    let limited = null;
    for (let i = 0; i < 130 && !limited; i++) {
      const res = await call("GET", "/me", { token: randomToken(), headers: { "cf-connecting-ip": ip } });
      if (res.status === 401) unauthorized += 1;
      else limited = res;
    }
    expect(limited, "no 429 within 130 unknown tokens").not.toBeNull();
    expectError(limited!, 429, "RateLimitedError");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(unauthorized).toBeGreaterThanOrEqual(59);
    expect(unauthorized).toBeLessThan(121);
    // One bogus token repeated, and values that cannot be tokens, are limited the same way.
    expectError(
      await call("GET", "/me", { token: "cws_bogus", headers: { "cf-connecting-ip": ip } }),
      429,
      "RateLimitedError",
    );
    expectError(
      await call("POST", "/token", { token: randomToken(), body: { name: "x" }, headers: { "cf-connecting-ip": ip } }),
      429,
      "RateLimitedError",
    );
    // A wrong ADMIN_TOKEN counts the same.
    expectError(
      await call("POST", "/admin/users", {
        token: "not-the-admin-token",
        body: { email: "x@example.com", name: "X" },
        headers: { "cf-connecting-ip": ip },
      }),
      429,
      "RateLimitedError",
    );
    // A valid token from the same address is not a failed authentication: it still works.
    const u = await registerUser("Neighbour");
    expect((await call("GET", "/me", { token: u.token, headers: { "cf-connecting-ip": ip } })).status).toBe(200);
    // Another address is its own client.
    expectError(
      await call("GET", "/me", { token: randomToken(), headers: { "cf-connecting-ip": "198.51.100.8" } }),
      401,
      "UnauthorizedError",
    );
  });

  it("counts an IPv6 client by its /64, so rotating the interface part does not escape the limit", async () => {
    let limited = null;
    for (let i = 0; i < 130 && !limited; i++) {
      const ip = `2001:db8:77:${i % 3 === 0 ? "0" : "0000"}:${(i * 7919).toString(16)}:1:2:${i.toString(16)}`;
      const res = await call("GET", "/me", { token: randomToken(), headers: { "cf-connecting-ip": ip } });
      if (res.status !== 401) limited = res;
    }
    expect(limited, "no 429 within 130 attempts from one /64").not.toBeNull();
    expectError(limited!, 429, "RateLimitedError");
    expectError(
      await call("GET", "/me", { token: randomToken(), headers: { "cf-connecting-ip": "2001:db8:78::1" } }),
      401,
      "UnauthorizedError",
    );
  });

  it("refuses a repeated unknown token without looking it up again, once the primary has not found it", async () => {
    const token = randomToken();
    // A read may be served by a replica that has not seen a token just issued: its miss is not remembered.
    expectError(await call("GET", "/me", { token }), 401, "UnauthorizedError");
    const read = await call("GET", "/me", { token });
    expectError(read, 401, "UnauthorizedError");
    expect(read.headers.get("x-d1-round-trips")).not.toBe("0");
    // A write looks tokens up on the primary: a miss there is final.
    expectError(await call("POST", "/token", { token, body: { name: "x" } }), 401, "UnauthorizedError");
    const again = await call("GET", "/me", { token });
    expectError(again, 401, "UnauthorizedError");
    expect(again.headers.get("x-d1-round-trips")).toBe("0");
    const malformed = await call("GET", "/me", { token: "not-a-token" });
    expectError(malformed, 401, "UnauthorizedError");
    expect(malformed.headers.get("x-d1-round-trips")).toBe("0");
  });
});

describe("the client address (one helper for every per-client limit)", () => {
  const headers = (ip?: string) => new Headers(ip === undefined ? {} : { "cf-connecting-ip": ip });

  it("trusts CF-Connecting-IP only behind Cloudflare's edge (TRUST_CF_CONNECTING_IP)", () => {
    expect(clientAddress(headers("203.0.113.9"), { TRUST_CF_CONNECTING_IP: "true" })).toBe("ip4:203.0.113.9");
    expect(clientAddress(headers("203.0.113.9"), { TRUST_CF_CONNECTING_IP: "false" })).toBe("direct");
    expect(clientAddress(headers("203.0.113.9"), {})).toBe("direct");
    expect(clientAddress(headers(), { TRUST_CF_CONNECTING_IP: "true" })).toBe("direct");
    expect(clientAddress(headers("<script>"), { TRUST_CF_CONNECTING_IP: "true" })).toBe("invalid");
  });

  it("keys IPv6 by its /64 and IPv4-mapped IPv6 as the IPv4 address", () => {
    expect(normalizeAddress("2001:db8:1:2:3:4:5:6")).toBe("ip6:2001:db8:1:2::/64");
    expect(normalizeAddress("2001:0DB8:0001:0002::ffff")).toBe("ip6:2001:db8:1:2::/64");
    expect(normalizeAddress("2001:db8::1")).toBe("ip6:2001:db8:0:0::/64");
    expect(normalizeAddress("::1")).toBe("ip6:0:0:0:0::/64");
    expect(normalizeAddress("::ffff:192.0.2.1")).toBe("ip4:192.0.2.1");
    expect(normalizeAddress("[2001:db8:1:2::9]")).toBe("ip6:2001:db8:1:2::/64");
    expect(normalizeAddress("192.0.2.300")).toBeNull();
    expect(normalizeAddress("1:2:3:4:5:6:7:8:9")).toBeNull();
    expect(normalizeAddress("1::2::3")).toBeNull();
  });

  it("without the edge, a client cannot escape the failed-authentication limit by inventing CF-Connecting-IP values", async () => {
    const untrusted = { ...env, TRUST_CF_CONNECTING_IP: "false" };
    let limited: Response | null = null;
    for (let i = 0; i < 130 && !limited; i++) {
      const ctx = createExecutionContext();
      const res = await worker.fetch(
        new Request(`${BASE}/me`, {
          headers: { authorization: "Bearer cws_forged", "cf-connecting-ip": `192.0.2.${i % 250}` },
        }),
        untrusted,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      if (res.status !== 401) limited = res;
    }
    expect(limited?.status, "no 429 within 130 attempts with forged addresses").toBe(429);
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
  });
});
