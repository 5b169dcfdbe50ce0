/** revokeToken: DELETE /token/{tokenId} (src/routes/tokens/revoke.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  seedTenant,
  type Tenant,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";

/**
 * Scoped tokens (docs/api-guide.md › Tokens and scopes): POST /token with `scopes` and `resources`, their rights the
 * intersection of scopes, resources and the user's rights; outside the scopes 403 naming the scope, outside the
 * resources 404; GET /token/all shows them; DELETE revokes. Through the real Worker in workerd.
 */
describe("scopes", () => {
  let t: Tenant;
  let otherProject: string;
  beforeAll(async () => {
    t = await seedTenant();
    otherProject = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "B" } })
    ).data._id;
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: otherProject, name: "B doc", type: "DOCUMENT" },
    });
  });

  const issue = async (token: string, body: Record<string, unknown>) =>
    (await ok("POST", "/token", { token, body: { name: "scoped", ...body } })).data as {
      _id: string;
      token: string;
      scopes: string[] | null;
      resources: string[] | null;
    };

  describe("scoped tokens", () => {
    it("lists scopes, resources and lastUsedAt; DELETE revokes at once", async () => {
      const s = await issue(t.owner.token, { scopes: ["tables:read"], resources: [t.workspaceId] });
      await ok("GET", `/table/all?projectId=${t.projectId}`, { token: s.token }).catch(() => undefined);
      await call("GET", `/project/${t.projectId}`, { token: s.token });
      const list = (await ok("GET", "/token/all", { token: t.owner.token })).data as Record<string, unknown>[];
      const row = list.find((r) => r._id === s._id)!;
      expect(row.scopes).toEqual(["tables:read"]);
      expect(row.resources).toEqual([t.workspaceId]);
      expect(row).toHaveProperty("lastUsedAt");
      const full = list.find((r) => r.scopes === null);
      expect(full, "the tenant's own full token").toBeDefined();
      await ok("DELETE", `/token/${s._id}`, { token: t.owner.token });
      expectError(await call("GET", `/project/${t.projectId}`, { token: s.token }), 401, "UnauthorizedError");
    });
  });
});

describe("tokens", () => {
  let u: RegisteredUser;
  let other: RegisteredUser;
  beforeAll(async () => {
    [u, other] = await Promise.all([registerUser("Tokens"), registerUser("Other")]);
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

  it("another user's token id is 404 and stays valid", async () => {
    const theirs = await ok("POST", "/token", { token: other.token, body: { name: "theirs" } });
    expectError(await call("DELETE", `/token/${theirs.data._id}`, { token: u.token }), 404, "NotFoundError");
    await ok("GET", "/me", { token: theirs.data.token });
    expectError(await call("DELETE", "/token/no-such-token", { token: u.token }), 404, "NotFoundError");
    expectError(await call("DELETE", "/token/bad%20id", { token: u.token }), 400, "ValidationError");
  });
});
