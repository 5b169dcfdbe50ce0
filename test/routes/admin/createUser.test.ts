import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, expectError, ok, registerUser, uniqueEmail } from "../../support/harness";
import { expectMsTimestamp, expectWorkspaceShape, TOKEN_PATTERN, USER_KEYS } from "../../support/shapes";
import { everyShardD1 } from "../../support/shards";

describe("POST /admin/users", () => {
  it("creates the user, a personal organization, a default workspace and a first token", async () => {
    const email = uniqueEmail("reg");
    const res = await call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: "  Regina  " } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { user, organization, workspace, token } = res.body.data;
    expect(Object.keys(res.body.data).sort()).toEqual(["organization", "token", "user", "workspace"]);

    expect(Object.keys(user).sort()).toEqual(USER_KEYS);
    expect(user).toMatchObject({ email, name: "Regina" });
    expectMsTimestamp(user.createdAt);

    expect(organization).toMatchObject({ _id: expect.any(String), ownerId: user._id, name: expect.any(String) });
    expectMsTimestamp(organization.createdAt);

    expectWorkspaceShape(workspace);
    expect(workspace).toMatchObject({
      organizationId: organization._id,
      ownerId: user._id,
      isDefault: true,
      isShared: false,
      collaborators: [{ userId: user._id, role: "owner" }],
    });

    expect(Object.keys(token).sort()).toEqual([
      "_id",
      "createdAt",
      "expiresAt",
      "name",
      "resources",
      "scopes",
      "token",
    ]);
    expect(token.token).toMatch(TOKEN_PATTERN);
    expect(token.expiresAt).toBeNull();
    // The first token is a full one: no scopes, no resources (docs/api-guide.md › Tokens and scopes).
    expect([token.scopes, token.resources]).toEqual([null, null]);

    // Re-read everything through the API with the issued token.
    const me = await ok("GET", "/me", { token: token.token });
    expect(me.data).toEqual(user);
    const orgs = await ok("GET", "/organization/all", { token: token.token });
    expect(orgs.data).toEqual([{ ...organization, role: "owner" }]);
    const wss = await ok("GET", `/workspace/all/${organization._id}`, { token: token.token });
    expect(wss.data).toEqual([workspace]);
    const ws = await ok("GET", `/workspace/${workspace._id}`, { token: token.token });
    expect(ws.data).toEqual(workspace);
    const tokens = await ok("GET", "/token/all", { token: token.token });
    expect(tokens.data).toHaveLength(1);
    expect(tokens.data[0]).toMatchObject({
      _id: token._id,
      name: token.name,
      createdAt: token.createdAt,
      expiresAt: null,
    });
    expect(JSON.stringify(tokens.data)).not.toContain(token.token);
  });

  it("issues distinct random tokens", async () => {
    const [a, b] = await Promise.all([registerUser("A"), registerUser("B")]);
    expect(a.token).toMatch(TOKEN_PATTERN);
    expect(b.token).toMatch(TOKEN_PATTERN);
    expect(a.token).not.toBe(b.token);
  });

  it("stores the email lower-cased and refuses it again in any case (409)", async () => {
    const local = `Mixed.Case-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const created = await ok("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: `${local}@Example.COM`, name: "Mixed" },
    });
    expect(created.data.user.email).toBe(`${local}@example.com`.toLowerCase());
    const same = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: `${local}@example.com`.toLowerCase(), name: "Again" },
    });
    expectError(same, 409, "ConflictError");
    const upper = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: `${local}@EXAMPLE.com`.toUpperCase(), name: "Again" },
    });
    expectError(upper, 409, "ConflictError");
  });

  it("costs 2 D1 round trips (4 with an Idempotency-Key); a taken email is 409 with nothing written", async () => {
    const email = uniqueEmail("trips");
    const first = await call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: "Trips" } });
    expect(first.status).toBe(200);
    expect(first.headers.get("x-d1-round-trips")).toBe("2");
    const taken = await call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: "Again" } });
    expectError(taken, 409, "ConflictError");
    expect(Number(taken.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(2);
    // The refused registration's batch wrote nothing: still one user and one organization for the email.
    expect(
      (await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = ?1").bind(email).first<{ n: number }>())!.n,
    ).toBe(1);
    // Users are in the directory (and copied to every shard); a refused registration's organization could have been
    // placed on any shard, so every shard is asked.
    const organizations = await Promise.all(
      everyShardD1().map(
        async (db) =>
          (await db
            .prepare("SELECT count(*) AS n FROM organizations o JOIN users u ON u.id = o.owner_id WHERE u.email = ?1")
            .bind(email)
            .first<{ n: number }>())!.n,
      ),
    );
    expect(organizations.reduce((a, b) => a + b, 0)).toBe(1);
    const keyed = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: uniqueEmail("trips-keyed"), name: "Keyed" },
      headers: { "idempotency-key": `trips-${crypto.randomUUID()}` },
    });
    expect(keyed.status).toBe(200);
    expect(keyed.headers.get("x-d1-round-trips")).toBe("4");
  });

  it("two concurrent registrations of one email: exactly one wins, the other is 409", async () => {
    const email = uniqueEmail("race");
    const results = await Promise.all(
      [1, 2, 3].map((i) => call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: `Racer ${i}` } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409]);
    for (const r of results.filter((x) => x.status === 409)) expectError(r, 409, "ConflictError");
  });

  it("answers 401 without the admin token, with a wrong one and with a user token", async () => {
    const body = { email: uniqueEmail(), name: "X" };
    expectError(await call("POST", "/admin/users", { body }), 401, "UnauthorizedError");
    expectError(await call("POST", "/admin/users", { token: "wrong-admin-token", body }), 401, "UnauthorizedError");
    expectError(await call("POST", "/admin/users", { token: `${ADMIN_TOKEN}x`, body }), 401, "UnauthorizedError");
    expectError(
      await call("POST", "/admin/users", { body, headers: { authorization: `Basic ${ADMIN_TOKEN}` } }),
      401,
      "UnauthorizedError",
    );
    const user = await registerUser("Not admin");
    expectError(await call("POST", "/admin/users", { token: user.token, body }), 401, "UnauthorizedError");
    // Nothing was created: the email is still free.
    await ok("POST", "/admin/users", { token: ADMIN_TOKEN, body });
  });

  it("checks the admin token before the body (401 before 400)", async () => {
    expectError(
      await call("POST", "/admin/users", { token: "wrong", body: { email: "not-an-email" } }),
      401,
      "UnauthorizedError",
    );
    expectError(await call("POST", "/admin/users", { body: { nope: true } }), 401, "UnauthorizedError");
    expectError(
      await call("POST", "/admin/users", { raw: "{not json", headers: { "content-type": "application/json" } }),
      401,
      "UnauthorizedError",
    );
  });

  it("honours Idempotency-Key (docs/api-guide.md › HTTP semantics: retries, caching, replicas): a retry is replayed, not 409; another request under the key is 422; a bad key 400", async () => {
    const email = uniqueEmail("keyed");
    const key = `reg-${crypto.randomUUID()}`;
    const register = (body: unknown, headers: Record<string, string> = { "idempotency-key": key }) =>
      call("POST", "/admin/users", { token: ADMIN_TOKEN, body, headers });
    const first = await register({ email, name: "Keyed" });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await register({ email, name: "Keyed" });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    // The replayed token is the one issued: it works.
    await ok("GET", "/me", { token: again.body.data.token.token });
    expectError(await register({ email: uniqueEmail("other"), name: "Other" }), 422, "UnprocessableEntityError");
    expectError(
      await register({ email: uniqueEmail("bad"), name: "Bad" }, { "idempotency-key": "x".repeat(256) }),
      400,
      "ValidationError",
    );
    // The admin token is still checked first.
    const unauthorized = await call("POST", "/admin/users", {
      token: "wrong",
      body: { email, name: "Keyed" },
      headers: { "idempotency-key": "x".repeat(256) },
    });
    expectError(unauthorized, 401, "UnauthorizedError");
  });

  it("answers 400 with details for a bad email, a missing name and an unknown member", async () => {
    const badEmail = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: "not-an-email", name: "X" },
    });
    expectError(badEmail, 400, "ValidationError");
    expect(badEmail.body.details).toEqual([{ path: "email", message: expect.any(String) }]);

    const noName = await call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email: uniqueEmail() } });
    expectError(noName, 400, "ValidationError");
    expect(noName.body.details.map((d: any) => d.path)).toEqual(["name"]);

    const blankName = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: uniqueEmail(), name: "   " },
    });
    expectError(blankName, 400, "ValidationError");

    const extra = await call("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: uniqueEmail(), name: "X", isAdmin: true },
    });
    expectError(extra, 400, "ValidationError");
    expect(extra.body.details.map((d: any) => d.path)).toEqual(["isAdmin"]);
  });
});
