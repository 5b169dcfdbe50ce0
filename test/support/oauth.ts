/**
 * Helpers of the OAuth tests (test/routes/oauth/): an app registered by an organization owner, PKCE pairs, the
 * consent form posted as a browser would (redirects not followed), and the token endpoint's form bodies.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { base64UrlEncode } from "../../src/lib/base64";
import { BASE, ok, type RegisteredUser } from "./harness";

export const REDIRECT = "https://app.example/callback";

export interface TestApp {
  clientId: string;
  clientSecret: string;
}

export async function registerApp(owner: RegisteredUser, redirectUris = [REDIRECT]): Promise<TestApp> {
  const body = await ok("POST", `/organization/${owner.organizationId}/oauth-app`, {
    token: owner.token,
    body: { name: "Sync Tool", redirectUris },
  });
  return { clientId: body.data.clientId, clientSecret: body.data.clientSecret };
}

export async function pkcePair() {
  const verifier = base64UrlEncode(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return { verifier, challenge: base64UrlEncode(new Uint8Array(digest)) };
}

/** A request without following redirects, from an address of its own. */
export async function send(
  method: string,
  path: string,
  init: { form?: Record<string, string>; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = {
    "cf-connecting-ip": `100.96.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    ...(init.headers ?? {}),
  };
  let body: string | undefined;
  if (init.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const res = await SELF.fetch(new URL(path, BASE), { method, headers, body, redirect: "manual" });
  const type = res.headers.get("content-type") ?? "";
  const parsed = type.includes("application/json") ? await res.json<any>() : await res.text();
  return { status: res.status, body: parsed as any, headers: res.headers };
}

export function authorizeParams(app: TestApp, challenge: string, extra: Record<string, string> = {}) {
  return {
    response_type: "code",
    client_id: app.clientId,
    redirect_uri: REDIRECT,
    scope: "documents:read",
    state: "xyz-state",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...extra,
  };
}

/** The user approves on the consent form: the code the app receives (state checked). */
export async function approve(
  app: TestApp,
  user: RegisteredUser,
  challenge: string,
  extra: Record<string, string> = {},
) {
  const res = await send("POST", "/oauth/authorize", {
    form: { ...authorizeParams(app, challenge, extra), token: user.token, decision: "approve" },
  });
  expect(res.status, String(res.body)).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
  expect(location.searchParams.get("state")).toBe("xyz-state");
  return location.searchParams.get("code")!;
}

export function redeem(app: TestApp, code: string, verifier: string, extra: Record<string, string> = {}) {
  return send("POST", "/oauth/token", {
    form: {
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      code_verifier: verifier,
      client_id: app.clientId,
      client_secret: app.clientSecret,
      ...extra,
    },
  });
}

export function refresh(app: TestApp, refreshToken: string) {
  return send("POST", "/oauth/token", {
    form: {
      grant_type: "refresh_token",
      refresh_token: refreshToken,
      client_id: app.clientId,
      client_secret: app.clientSecret,
    },
  });
}

/** A full grant: register nothing, approve, redeem. */
export async function grant(app: TestApp, user: RegisteredUser, extra: Record<string, string> = {}) {
  const { verifier, challenge } = await pkcePair();
  const code = await approve(app, user, challenge, extra);
  const res = await redeem(app, code, verifier);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { access_token: string; refresh_token: string; scope: string; expires_in: number };
}
