import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { grant, registerApp, REDIRECT, type TestApp } from "../../support/oauth";

/** docs/api-guide.md › OAuth apps: registration by an organization owner or admin. */
let owner: RegisteredUser;
let member: RegisteredUser;
let admin: RegisteredUser;
let outsider: RegisteredUser;

beforeAll(async () => {
  [owner, member, admin, outsider] = await Promise.all([
    registerUser("App Owner"),
    registerUser("App Member"),
    registerUser("App Admin"),
    registerUser("App Outsider"),
  ]);
  for (const [u, role] of [
    [member, "member"],
    [admin, "admin"],
  ] as const)
    await ok("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: u.email, role },
    });
});

const path = () => `/organization/${owner.organizationId}/oauth-app`;

describe("createOAuthApp", () => {
  it("an owner or admin registers an app; the secret is shown once and only its hash is kept", async () => {
    for (const who of [owner, admin]) {
      const res = await ok("POST", path(), {
        token: who.token,
        body: { name: "Sync Tool", redirectUris: [REDIRECT, "http://127.0.0.1:8080/cb"] },
      });
      expect(res.data).toMatchObject({
        clientId: expect.any(String),
        organizationId: owner.organizationId,
        name: "Sync Tool",
        redirectUris: [REDIRECT, "http://127.0.0.1:8080/cb"],
      });
      expect(res.data.clientSecret).toMatch(/^cwcs_[A-Za-z0-9]{40}$/);
      const listed = await ok("GET", `${path()}/all`, { token: who.token });
      const mine = listed.data.find((a: { clientId: string }) => a.clientId === res.data.clientId);
      expect(mine).toBeDefined();
      expect(JSON.stringify(listed)).not.toContain(res.data.clientSecret);
    }
  });

  it("a plain member is 403; someone outside the organization 404; a scoped token without admin 403", async () => {
    const body = { name: "x", redirectUris: [REDIRECT] };
    expectError(await call("POST", path(), { token: member.token, body }), 403, "ForbiddenError");
    expectError(await call("POST", path(), { token: outsider.token, body }), 404, "NotFoundError");
    const scoped = await ok("POST", "/token", { token: owner.token, body: { name: "s", scopes: ["documents:write"] } });
    const res = await call("POST", path(), { token: scoped.data.token, body });
    expectError(res, 403, "ForbiddenError");
    expect(res.body.details).toEqual([{ path: "scope", message: "needs admin" }]);
  });

  it("refuses redirect URIs that are not https (or loopback http), or carry a fragment", async () => {
    for (const uri of ["http://app.example/cb", "https://app.example/cb#x", "not a url", "javascript:alert(1)"]) {
      const res = await call("POST", path(), { token: owner.token, body: { name: "x", redirectUris: [uri] } });
      expectError(res, 400, "ValidationError");
      expect(res.body.details[0].path).toBe("redirectUris.0");
    }
  });
});

describe("listOAuthApps", () => {
  it("lists only to owners and admins", async () => {
    await registerApp(owner);
    expect((await ok("GET", `${path()}/all`, { token: owner.token })).data.length).toBeGreaterThan(0);
    expectError(await call("GET", `${path()}/all`, { token: member.token }), 403, "ForbiddenError");
    expectError(await call("GET", `${path()}/all`, { token: outsider.token }), 404, "NotFoundError");
  });
});

describe("deleteOAuthApp", () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await registerApp(owner);
  });

  it("deleting an app revokes the access tokens it was granted", async () => {
    const tokens = await grant(app, owner, { scope: "members:read" });
    await ok("GET", "/me", { token: tokens.access_token });
    expectError(await call("DELETE", `${path()}/${app.clientId}`, { token: member.token }), 403, "ForbiddenError");
    // Another organization's path does not reach it.
    expectError(
      await call("DELETE", `/organization/${outsider.organizationId}/oauth-app/${app.clientId}`, {
        token: outsider.token,
      }),
      404,
      "NotFoundError",
    );
    await ok("DELETE", `${path()}/${app.clientId}`, { token: owner.token });
    expectError(await call("GET", "/me", { token: tokens.access_token }), 401, "UnauthorizedError");
    expectError(await call("DELETE", `${path()}/${app.clientId}`, { token: owner.token }), 404, "NotFoundError");
    const listed = await ok("GET", `${path()}/all`, { token: owner.token });
    expect(listed.data.map((a: { clientId: string }) => a.clientId)).not.toContain(app.clientId);
  });
});
