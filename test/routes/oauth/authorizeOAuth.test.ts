import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, seedTenant, type RegisteredUser, type Tenant } from "../../support/harness";
import { authorizeParams, pkcePair, REDIRECT, registerApp, send, type TestApp } from "../../support/oauth";

/** docs/api-guide.md › OAuth apps: the authorization request and its consent page. */
let t: Tenant;
let app: TestApp;
let challenge: string;

beforeAll(async () => {
  t = await seedTenant();
  app = await registerApp(t.owner);
  ({ challenge } = await pkcePair());
});

const authorize = (params: Record<string, string>) => send("GET", `/oauth/authorize?${new URLSearchParams(params)}`);
const redirectedError = (res: { status: number; headers: Headers }) => {
  expect(res.status).toBe(302);
  const url = new URL(res.headers.get("location")!);
  expect(`${url.origin}${url.pathname}`).toBe(REDIRECT);
  expect(url.searchParams.get("state")).toBe("xyz-state");
  return url.searchParams.get("error");
};

describe("authorizeOAuth", () => {
  it("shows the app, the scopes and resources asked for, in a form that posts back, under a strict CSP", async () => {
    const res = await authorize(
      authorizeParams(app, challenge, { scope: "tables:write documents:read", resource: t.projectId }),
    );
    expect(res.status).toBe(200);
    expect(Number(res.headers.get("x-d1-round-trips"))).toBeOneOf([1]);
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = res.body as string;
    expect(html).toContain("Authorize Sync Tool");
    expect(html).toContain("read and change tables, columns, rows and cells");
    expect(html).toContain("<code>tables:write</code>");
    expect(html).toContain(t.projectId);
    expect(html).toContain("https://app.example");
    expect(html).toMatch(/<form method="post" action="\/oauth\/authorize">/);
    expect(html).toMatch(/<label for="token">/);
    expect(html).not.toMatch(/<script/i);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("form-action 'self' https://app.example");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("never redirects to an unknown client's or an unregistered redirect URI: a 400 page instead", async () => {
    for (const params of [
      authorizeParams(app, challenge, { client_id: "01JD5Y7X9Q0000000000000000" }),
      authorizeParams(app, challenge, { redirect_uri: "https://evil.example/callback" }),
      authorizeParams(app, challenge, { redirect_uri: `${REDIRECT}/extra` }),
    ]) {
      const res = await authorize(params);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body).toContain("Authorization request refused");
    }
  });

  it("sends the app's other mistakes to its redirect URI: no PKCE, plain PKCE, wrong response_type, bad scope", async () => {
    const { code_challenge: _omit, ...noChallenge } = authorizeParams(app, challenge);
    expect(redirectedError(await authorize(noChallenge))).toBe("invalid_request");
    expect(redirectedError(await authorize(authorizeParams(app, challenge, { code_challenge_method: "plain" })))).toBe(
      "invalid_request",
    );
    expect(redirectedError(await authorize(authorizeParams(app, challenge, { response_type: "token" })))).toBe(
      "unsupported_response_type",
    );
    expect(redirectedError(await authorize(authorizeParams(app, challenge, { scope: "everything" })))).toBe(
      "invalid_scope",
    );
    expect(redirectedError(await authorize(authorizeParams(app, challenge, { scope: "" })))).toBe("invalid_scope");
  });
});

describe("approveOAuth", () => {
  const post = (form: Record<string, string>) => send("POST", "/oauth/authorize", { form });

  it("approving with the user's token redirects with a code and the state; denying with access_denied", async () => {
    const yes = await post({
      ...authorizeParams(app, challenge, { resource: t.projectId }),
      token: t.owner.token,
      decision: "approve",
    });
    expect(yes.status).toBe(302);
    expect(Number(yes.headers.get("x-d1-round-trips"))).toBeOneOf([1, 2, 3, 4]);
    const url = new URL(yes.headers.get("location")!);
    expect(url.searchParams.get("code")).toMatch(/^[A-Za-z0-9]{43}$/);
    expect(url.searchParams.get("state")).toBe("xyz-state");
    const no = await post({ ...authorizeParams(app, challenge), decision: "deny" });
    expect(redirectedError(no)).toBe("access_denied");
  });

  it("a wrong or missing token shows the page again (401), with the reason, and issues no code", async () => {
    for (const token of ["cws_bogus0000000000000000000000000000000000", ""]) {
      const res = await post({ ...authorizeParams(app, challenge), token, decision: "approve" });
      expect(res.status).toBe(401);
      expect(res.headers.get("location")).toBeNull();
      expect(res.body).toContain('role="alert"');
      expect(res.body).toContain("Authorize Sync Tool");
    }
  });

  it("a token cannot grant more than it holds, nor resources its user cannot read (403 page)", async () => {
    const scoped = async (scopes: string[]) =>
      (await ok("POST", "/token", { token: t.owner.token, body: { name: "narrow", scopes } })).data.token as string;
    // Approving issues credentials: a scoped token needs admin, as POST /token does.
    const noAdmin = await post({
      ...authorizeParams(app, challenge),
      token: await scoped(["documents:read"]),
      decision: "approve",
    });
    expect(noAdmin.status).toBe(403);
    expect(noAdmin.body).toContain("needs admin");
    const wider = await post({
      ...authorizeParams(app, challenge, { scope: "documents:write" }),
      token: await scoped(["documents:read", "admin"]),
      decision: "approve",
    });
    expect(wider.status).toBe(403);
    expect(wider.body).toContain("needs documents:write");
    const stranger: RegisteredUser = await registerUser("Stranger");
    const foreign = await post({
      ...authorizeParams(app, challenge, { resource: t.projectId }),
      token: stranger.token,
      decision: "approve",
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("location")).toBeNull();
  });

  it("an unregistered redirect URI is refused on the form too, before any token is read", async () => {
    const res = await post({
      ...authorizeParams(app, challenge, { redirect_uri: "https://evil.example/cb" }),
      token: t.owner.token,
      decision: "approve",
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});
