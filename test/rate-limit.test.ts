import { describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser } from "./harness";

describe("per-token rate limit (API.md §12)", () => {
  it("answers 429 with Retry-After once a token spends its 300 requests a minute, for that token only", async () => {
    const u = await registerUser("Busy");
    const other = await ok("POST", "/token", { token: u.token, body: { name: "second" } });
    // The limiter counts in fixed 60 s windows: a run that straddles a window boundary may pass up to twice the
    // budget before its first 429, never less than one budget (the token issue above spent one request of it).
    let allowed = 0;
    let limited = null;
    for (let i = 0; i < 700 && !limited; i++) {
      const res = await call("GET", "/me", { token: u.token });
      if (res.status === 200) allowed += 1;
      else limited = res;
    }
    expect(limited, "no 429 within 700 requests").not.toBeNull();
    expect(allowed).toBeGreaterThanOrEqual(299);
    expect(allowed).toBeLessThan(600);
    expectError(limited!, 429, "RateLimitedError");
    expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another token of the same user has its own budget.
    expect((await call("GET", "/me", { token: other.data.token })).status).toBe(200);
    // A keyed POST refused by the limit leaves its Idempotency-Key free: the same request from the other token runs.
    const key = `k-${crypto.randomUUID()}`;
    const body = { name: "Limited org" };
    const refused = await call("POST", "/organization", { token: u.token, headers: { "idempotency-key": key }, body });
    expectError(refused, 429, "RateLimitedError");
    const retried = await call("POST", "/organization", { token: other.data.token, headers: { "idempotency-key": key }, body });
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
  });
});
