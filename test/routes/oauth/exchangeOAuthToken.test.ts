import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { pruneOAuthGrants } from "../../../src/services/oauth/prune";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { approve, grant, pkcePair, redeem, refresh, registerApp, send, type TestApp } from "../../support/oauth";

/** docs/api-guide.md › OAuth apps: the token endpoint (code + PKCE, refresh rotation), revocation and metadata. */
let t: Tenant;
let app: TestApp;

beforeAll(async () => {
  t = await seedTenant();
  app = await registerApp(t.owner);
});

const meStatus = async (token: string) => (await call("GET", "/me", { token })).status;

describe("exchangeOAuthToken", () => {
  it("code + PKCE gives a scoped access token (cws_…) limited to the scopes and resources approved", async () => {
    const { verifier, challenge } = await pkcePair();
    const code = await approve(app, t.owner, challenge, { scope: "documents:read", resource: t.projectId });
    const res = await redeem(app, code, verifier);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(Number(res.headers.get("x-d1-round-trips"))).toBeOneOf([1, 2]);
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "documents:read" });
    expect(res.body.access_token).toMatch(/^cws_/);
    expect(res.body.refresh_token).toMatch(/^cwr_/);
    const token = res.body.access_token as string;
    await ok("GET", `/document/${t.docId}`, { token });
    // Outside its scopes: 403 naming the scope; outside its resources: 404.
    const write = await call("POST", "/document", {
      token,
      body: { projectId: t.projectId, name: "No", type: "DOCUMENT" },
    });
    expectError(write, 403, "ForbiddenError");
    expect(write.body.details).toEqual([{ path: "scope", message: "needs documents:write" }]);
    const other = await ok("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Other" },
    });
    expectError(await call("GET", `/project/${other.data._id}`, { token }), 404, "NotFoundError");
    // The user sees it among their tokens, with its scopes, and can revoke it there too.
    const listed = await ok("GET", "/token/all", { token: t.owner.token });
    const mine = listed.data.find((x: { name: string; scopes: string[] | null }) => x.name === "OAuth: Sync Tool");
    expect(mine).toMatchObject({ scopes: ["documents:read"], resources: [t.projectId] });
    expect(mine.expiresAt).toBeGreaterThan(Date.now());
  });

  it("refuses a wrong verifier, a redirect_uri that differs, a wrong secret, and burns the code on a failed try", async () => {
    const { verifier, challenge } = await pkcePair();
    const wrongSecret = await redeem(
      { ...app, clientSecret: "cwcs_wrong" },
      await approve(app, t.owner, challenge),
      verifier,
    );
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.error).toBe("invalid_client");
    const code = await approve(app, t.owner, challenge);
    const other = await pkcePair();
    const wrong = await redeem(app, code, other.verifier);
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: "invalid_grant", message: "code_verifier does not match the code_challenge" });
    expect((await redeem(app, code, verifier)).body.error).toBe("invalid_grant");
    const code2 = await approve(app, t.owner, challenge);
    const mismatch = await redeem(app, code2, verifier, { redirect_uri: "https://app.example/other" });
    expect(mismatch.body.error).toBe("invalid_grant");
    const another = await registerApp(t.owner);
    const code3 = await approve(app, t.owner, challenge);
    expect((await redeem(another, code3, verifier)).body.error).toBe("invalid_grant");
    expect((await redeem(app, code3, verifier)).status).toBe(200);
  });

  it("a code is single use: redeeming it again fails and revokes what the first redemption issued", async () => {
    const { verifier, challenge } = await pkcePair();
    const code = await approve(app, t.owner, challenge, { scope: "members:read" });
    const first = await redeem(app, code, verifier);
    expect(first.status).toBe(200);
    expect(await meStatus(first.body.access_token)).toBe(200);
    const again = await redeem(app, code, verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe("invalid_grant");
    expect(await meStatus(first.body.access_token)).toBe(401);
    expect((await refresh(app, first.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("rotates refresh tokens; presenting a rotated one revokes the whole grant", async () => {
    const first = await grant(app, t.owner, { scope: "members:read" });
    const second = await refresh(app, first.refresh_token);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(Number(second.headers.get("x-d1-round-trips"))).toBeOneOf([1, 2]);
    expect(second.body.refresh_token).not.toBe(first.refresh_token);
    expect(second.body.scope).toBe("members:read");
    expect(await meStatus(second.body.access_token)).toBe(200);
    // The grant's previous access token ends with the rotation.
    expect(await meStatus(first.access_token)).toBe(401);
    const reused = await refresh(app, first.refresh_token);
    expect(reused.status).toBe(400);
    expect(Number(reused.headers.get("x-d1-round-trips"))).toBeOneOf([1, 2]);
    expect(reused.body.error).toBe("invalid_grant");
    expect(await meStatus(second.body.access_token)).toBe(401);
    expect((await refresh(app, second.body.refresh_token)).body.error).toBe("invalid_grant");
  });

  it("no token of a grant outlives the token that approved it", async () => {
    const expiresAt = Date.now() + 10 * 60_000;
    const short = await ok("POST", "/token", { token: t.owner.token, body: { name: "short", expiresAt } });
    const tokens = await grant(app, { ...t.owner, token: short.data.token }, { scope: "members:read" });
    expect(tokens.expires_in).toBeLessThanOrEqual(600);
    const listed = await ok("GET", "/token/all", { token: t.owner.token });
    const issued = listed.data.filter((x: { name: string }) => x.name === "OAuth: Sync Tool");
    expect(Math.min(...issued.map((x: { expiresAt: number }) => x.expiresAt))).toBeLessThanOrEqual(expiresAt);
    const refreshed = await refresh(app, tokens.refresh_token);
    expect(refreshed.body.expires_in).toBeLessThanOrEqual(600);
  });

  it("answers protocol errors with the protocol's codes", async () => {
    const form = { client_id: app.clientId, client_secret: app.clientSecret };
    const grantType = await send("POST", "/oauth/token", { form: { ...form, grant_type: "password" } });
    expect(grantType.body.error).toBe("unsupported_grant_type");
    const noClient = await send("POST", "/oauth/token", { form: { grant_type: "refresh_token", refresh_token: "x" } });
    expect(noClient.status).toBe(401);
    expect(noClient.body.error).toBe("invalid_client");
    const basic = btoa(`${app.clientId}:${app.clientSecret}`);
    const viaBasic = await send("POST", "/oauth/token", {
      form: { grant_type: "refresh_token", refresh_token: "cwr_unknown" },
      headers: { authorization: `Basic ${basic}` },
    });
    expect(viaBasic.body.error).toBe("invalid_grant");
  });

  it("MCP accepts an OAuth access token: a scoped token like any other", async () => {
    const tokens = await grant(app, t.owner, { scope: "documents:read" });
    const res = await call("POST", "/mcp", {
      token: tokens.access_token,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "get_document", arguments: { documentId: t.docId } },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.result.isError).toBeFalsy();
    const write = await call("POST", "/mcp", {
      token: tokens.access_token,
      headers: { accept: "application/json, text/event-stream" },
      body: {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "create_document", arguments: { projectId: t.projectId, name: "x", markdown: "# x" } },
      },
    });
    expect(write.body.result.isError).toBe(true);
    expect(write.body.result.content[0].text).toContain("needs documents:write");
  });
});

describe("revokeOAuthToken", () => {
  const revoke = (token: string, who: TestApp = app) =>
    send("POST", "/oauth/revoke", { form: { token, client_id: who.clientId, client_secret: who.clientSecret } });

  it("a refresh token revokes its grant; an access token itself; an unknown token is 200 too", async () => {
    const a = await grant(app, t.owner, { scope: "members:read" });
    expect((await revoke(a.access_token)).status).toBe(200);
    expect(await meStatus(a.access_token)).toBe(401);
    expect((await refresh(app, a.refresh_token)).status).toBe(200);
    const b = await grant(app, t.owner, { scope: "members:read" });
    expect((await revoke(b.refresh_token)).status).toBe(200);
    expect(await meStatus(b.access_token)).toBe(401);
    expect((await refresh(app, b.refresh_token)).body.error).toBe("invalid_grant");
    expect((await revoke("cwr_nothing")).status).toBe(200);
  });

  it("needs the app's credentials, and revokes only the app's own tokens", async () => {
    const a = await grant(app, t.owner, { scope: "members:read" });
    const wrong = await revoke(a.access_token, { ...app, clientSecret: "cwcs_wrong" });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error).toBe("invalid_client");
    const other = await registerApp(t.owner);
    expect((await revoke(a.access_token, other)).status).toBe(200);
    expect((await revoke(t.owner.token, other)).status).toBe(200);
    expect(await meStatus(a.access_token)).toBe(200);
    expect(await meStatus(t.owner.token)).toBe(200);
  });
});

describe("getOAuthMetadata", () => {
  it("describes the endpoints and what they support (RFC 8414)", async () => {
    const meta = await ok("GET", "/.well-known/oauth-authorization-server");
    expect(meta).toMatchObject({
      issuer: "http://api.test",
      authorization_endpoint: "http://api.test/oauth/authorize",
      token_endpoint: "http://api.test/oauth/token",
      revocation_endpoint: "http://api.test/oauth/revoke",
      response_types_supported: ["code"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
    });
    expect(meta.scopes_supported).toContain("tables:write");
  });

  it("the upkeep drops spent codes a day after they expire and refresh tokens (with their access tokens) once expired", async () => {
    const own = await registerApp(t.owner);
    const first = await grant(own, t.owner, { scope: "members:read" });
    const second = (await refresh(own, first.refresh_token)).body;
    const count = (sql: string, bind: string) => env.DB.prepare(sql).bind(bind).first<number>("n");
    const accessIds = JSON.stringify(
      (
        await env.DB.prepare(`SELECT access_token_id AS id FROM oauth_refresh_tokens WHERE client_id = ?1`)
          .bind(own.clientId)
          .all<{ id: string }>()
      ).results.map((r) => r.id),
    );
    const left = async () => ({
      codes: await count(`SELECT count(*) AS n FROM oauth_codes WHERE client_id = ?1`, own.clientId),
      refresh: await count(`SELECT count(*) AS n FROM oauth_refresh_tokens WHERE client_id = ?1`, own.clientId),
      // The first access token went when it was refreshed; the second stays until its refresh token expires.
      access: await count(
        `SELECT count(*) AS n FROM access_tokens WHERE id IN (SELECT value FROM json_each(?1))`,
        accessIds,
      ),
    });
    expect(await left()).toEqual({ codes: 1, refresh: 2, access: 1 });
    // An hour on: the code is expired but kept (a replay still revokes the grant), the refresh tokens live.
    await pruneOAuthGrants(env, Date.now() + 3_600_000);
    expect(await left()).toEqual({ codes: 1, refresh: 2, access: 1 });
    expect(await meStatus(second.access_token)).toBe(200);
    // Thirty-one days on, every step of the upkeep (bounded per tick) until nothing is left to drop.
    const later = Date.now() + 31 * 86_400_000;
    while ((await pruneOAuthGrants(env, later)) > 0);
    expect(await left()).toEqual({ codes: 0, refresh: 0, access: 0 });
  });
});
