/** getMe: GET /me (src/routes/me/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";

describe("GET /me", () => {
  let u: RegisteredUser;
  let other: RegisteredUser;
  beforeAll(async () => {
    [u, other] = await Promise.all([registerUser("Tokens"), registerUser("Other")]);
  });

  it("GET /me answers the caller's user record", async () => {
    const me = await ok("GET", "/me", { token: other.token });
    expect(me.data).toEqual({ _id: other.id, email: other.email, name: "Other", createdAt: expect.any(Number) });
  });

  it("answers 401 for malformed Authorization headers", async () => {
    for (const authorization of ["Bearer", "Bearer ", `Token ${u.token}`, u.token, `Bearer ${u.token} extra`]) {
      expectError(await call("GET", "/me", { headers: { authorization } }), 401, "UnauthorizedError");
    }
    // The scheme name is case-insensitive (RFC 7235).
    await ok("GET", "/me", { headers: { authorization: `bearer ${u.token}` } });
  });
});
