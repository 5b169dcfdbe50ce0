/** listTokens: GET /token/all (src/routes/tokens/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, type RegisteredUser } from "../../support/harness";
import { expectMsTimestamp, TOKEN_PATTERN } from "../../support/shapes";

describe("tokens", () => {
  let u: RegisteredUser;
  let other: RegisteredUser;
  beforeAll(async () => {
    [u, other] = await Promise.all([registerUser("Tokens"), registerUser("Other")]);
  });

  it("POST /token shows the secret once; GET /token/all never does, and records lastUsedAt after use", async () => {
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "ci" } });
    expect(Object.keys(issued.data).sort()).toEqual([
      "_id",
      "createdAt",
      "expiresAt",
      "name",
      "resources",
      "scopes",
      "token",
    ]);
    expect(issued.data).toMatchObject({ name: "ci", expiresAt: null });
    expect(issued.data.token).toMatch(TOKEN_PATTERN);
    expect(issued.data.token).not.toBe(u.token);

    const before = await ok("GET", "/token/all", { token: u.token });
    const listed = before.data.find((t: any) => t._id === issued.data._id);
    expect(listed).toEqual({
      _id: issued.data._id,
      name: "ci",
      createdAt: issued.data.createdAt,
      expiresAt: null,
      lastUsedAt: null,
      scopes: null,
      resources: null,
    });
    for (const t of before.data)
      expect(Object.keys(t).sort()).toEqual([
        "_id",
        "createdAt",
        "expiresAt",
        "lastUsedAt",
        "name",
        "resources",
        "scopes",
      ]);
    expect(JSON.stringify(before.data)).not.toMatch(/cws_/);

    const me = await ok("GET", "/me", { token: issued.data.token });
    expect(me.data._id).toBe(u.id);
    const after = await ok("GET", "/token/all", { token: u.token });
    const used = after.data.find((t: any) => t._id === issued.data._id);
    expectMsTimestamp(used.lastUsedAt);
    expect(used.lastUsedAt).toBeGreaterThanOrEqual(issued.data.createdAt);
    // Only the caller's own tokens are listed.
    const others = await ok("GET", "/token/all", { token: other.token });
    expect(others.data.map((t: any) => t._id)).not.toContain(issued.data._id);
  });
});
