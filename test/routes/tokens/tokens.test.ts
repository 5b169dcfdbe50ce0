import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { expectMsTimestamp, TOKEN_PATTERN } from "../../support/shapes";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

  it("accepts a future expiresAt and refuses a past one (400)", async () => {
    const expiresAt = Date.now() + 3_600_000;
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "short", expiresAt } });
    expect(issued.data.expiresAt).toBe(expiresAt);
    await ok("GET", "/me", { token: issued.data.token });

    const past = await call("POST", "/token", { token: u.token, body: { name: "old", expiresAt: Date.now() - 1000 } });
    expectError(past, 400, "ValidationError");
    expect(past.body.details.map((d: any) => d.path)).toEqual(["expiresAt"]);
    expectError(
      await call("POST", "/token", { token: u.token, body: { name: "x", expiresAt: "tomorrow" } }),
      400,
      "ValidationError",
    );
    expectError(await call("POST", "/token", { token: u.token, body: { name: "" } }), 400, "ValidationError");
    expectError(await call("POST", "/token", { token: u.token, body: {} }), 400, "ValidationError");
    const unknown = await call("POST", "/token", { token: u.token, body: { name: "x", permissions: ["all"] } });
    expectError(unknown, 400, "ValidationError");
    expect(unknown.body.details.map((d: any) => d.path)).toEqual(["permissions"]);
    // An unknown scope is named by its place in the list (docs/api-guide.md › Tokens and scopes).
    const badScope = await call("POST", "/token", { token: u.token, body: { name: "x", scopes: ["all"] } });
    expect(badScope.body.details.map((d: any) => d.path)).toEqual(["scopes.0"]);
  });

  it("answers 401 for a token once it has expired", async () => {
    const issued = await ok("POST", "/token", {
      token: u.token,
      body: { name: "brief", expiresAt: Date.now() + 1200 },
    });
    await ok("GET", "/me", { token: issued.data.token });
    await sleep(1500);
    const res = await call("GET", "/me", { token: issued.data.token });
    expectError(res, 401, "UnauthorizedError");
    // The user's other token is unaffected.
    await ok("GET", "/me", { token: u.token });
  });

  it("DELETE /token/{id} revokes at once", async () => {
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "temp" } });
    await ok("GET", "/me", { token: issued.data.token });
    const del = await ok("DELETE", `/token/${issued.data._id}`, { token: u.token });
    expect(del).toEqual({ data: { success: true } });
    expectError(await call("GET", "/me", { token: issued.data.token }), 401, "UnauthorizedError");
    const list = await ok("GET", "/token/all", { token: u.token });
    expect(list.data.map((t: any) => t._id)).not.toContain(issued.data._id);
    expectError(await call("DELETE", `/token/${issued.data._id}`, { token: u.token }), 404, "NotFoundError");
  });

  it("a token can revoke itself; the very next call is 401", async () => {
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "self" } });
    await ok("DELETE", `/token/${issued.data._id}`, { token: issued.data.token });
    expectError(await call("GET", "/token/all", { token: issued.data.token }), 401, "UnauthorizedError");
  });

  it("another user's token id is 404 and stays valid", async () => {
    const theirs = await ok("POST", "/token", { token: other.token, body: { name: "theirs" } });
    expectError(await call("DELETE", `/token/${theirs.data._id}`, { token: u.token }), 404, "NotFoundError");
    await ok("GET", "/me", { token: theirs.data.token });
    expectError(await call("DELETE", "/token/no-such-token", { token: u.token }), 404, "NotFoundError");
    expectError(await call("DELETE", "/token/bad%20id", { token: u.token }), 400, "ValidationError");
  });
});
