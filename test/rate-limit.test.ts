import { describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser } from "./harness";

describe("per-token rate limit (API.md §12)", () => {
  it("answers 429 with Retry-After past 300 requests a minute, for that token only", async () => {
    const u = await registerUser("Busy");
    const other = await ok("POST", "/token", { token: u.token, body: { name: "second" } });
    const statuses: number[] = [];
    for (let i = 0; i < 320; i++) statuses.push((await call("GET", "/me", { token: u.token })).status);
    // The token issue above spent one request of the budget.
    expect(statuses.filter((s) => s === 200).length).toBe(299);
    expect(statuses.slice(299).every((s) => s === 429)).toBe(true);
    const limited = await call("GET", "/me", { token: u.token });
    expectError(limited, 429, "RateLimitedError");
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another token of the same user has its own budget.
    expect((await call("GET", "/me", { token: other.data.token })).status).toBe(200);
  });
});
