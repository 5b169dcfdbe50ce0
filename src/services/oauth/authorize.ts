/**
 * The authorization request of OAuth 2.1 (docs/api-guide.md › OAuth apps): `GET /oauth/authorize` checks it and shows
 * the consent page; the user approves by posting the page back with one of their own tokens (there is no browser
 * login in this service), and the app receives a single-use code bound to its PKCE challenge.
 */
import { eq } from "drizzle-orm";
import { ALL_SCOPES, type Scope } from "../../auth/scopes";
import { oauthApps, oauthCodes } from "../../db/schema";
import { ApiError } from "../../errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { MAX_TOKEN_RESOURCES } from "../identity/tokens";
import { narrowScopes, resolveResources } from "../identity/tokenScopes";
import type { ServiceContext } from "../context";
import { OAuthError } from "./errors";

/** How long a code may wait to be redeemed. */
export const CODE_TTL_MS = 5 * 60_000;

/** The authorization request's parameters, as the query (GET) or the consent form (POST) carries them. */
export interface AuthorizeParams {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  /** Organization, workspace or project ids, space-separated (or the parameter repeated). */
  resource?: string;
}

export interface CheckedRequest {
  app: { clientId: string; name: string };
  redirectUri: string;
  scopes: string[];
  resources: string[];
  state: string | null;
  codeChallenge: string;
}

/** A request that cannot be sent back to the app (unknown client, unregistered redirect URI): shown to the user. */
export class UnsafeRedirect extends Error {}

/** A request the app made wrongly: answered on its redirect URI with `error` (RFC 6749 §4.1.2.1). */
export class RedirectedError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: string,
    message: string,
    readonly state: string | null,
  ) {
    super(message);
  }
}

const ID = /^[A-Za-z0-9_-]{1,64}$/;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function appStatement(ctx: ServiceContext, clientId: string) {
  return ctx.db
    .select({ id: oauthApps.id, name: oauthApps.name, redirectUris: oauthApps.redirectUris })
    .from(oauthApps)
    .where(eq(oauthApps.id, ID.test(clientId) ? clientId : ""));
}

type AppRow = { id: string; name: string; redirectUris: string[] };

/** Checks the request against the app's registration, in the order RFC 6749 §4.1.2.1 asks. */
function checkAgainst(app: AppRow | undefined, p: AuthorizeParams): CheckedRequest {
  if (!app) throw new UnsafeRedirect("This app is not registered (unknown client_id).");
  const redirectUri = p.redirect_uri ?? (app.redirectUris.length === 1 ? app.redirectUris[0]! : "");
  if (!app.redirectUris.includes(redirectUri))
    throw new UnsafeRedirect("The redirect_uri is not one this app registered (it must match exactly).");
  const state = p.state ?? null;
  const fail = (error: string, message: string) => new RedirectedError(redirectUri, error, message, state);
  if (state !== null && state.length > 1024) throw fail("invalid_request", "state is longer than 1024 characters");
  if (p.response_type !== "code") throw fail("unsupported_response_type", "Only response_type=code is supported");
  if (p.code_challenge_method !== "S256" || !CHALLENGE.test(p.code_challenge ?? ""))
    throw fail(
      "invalid_request",
      "PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256",
    );
  const scopes = [...new Set((p.scope ?? "").split(" ").filter(Boolean))];
  if (scopes.length === 0 || scopes.some((s) => !ALL_SCOPES.includes(s as Scope)))
    throw fail("invalid_scope", `scope must list one or more of: ${ALL_SCOPES.join(" ")}`);
  const resources = [...new Set((p.resource ?? "").split(" ").filter(Boolean))];
  if (resources.length > MAX_TOKEN_RESOURCES || resources.some((r) => !ID.test(r)))
    throw fail("invalid_target", `resource lists up to ${MAX_TOKEN_RESOURCES} organization, workspace or project ids`);
  return {
    app: { clientId: app.id, name: app.name },
    redirectUri,
    scopes,
    resources,
    state,
    codeChallenge: p.code_challenge!,
  };
}

/** The request checked for the consent page (one round trip: the app). */
export async function checkAuthorizeRequest(ctx: ServiceContext, params: AuthorizeParams): Promise<CheckedRequest> {
  const [app] = await appStatement(ctx, params.client_id ?? "");
  return checkAgainst(app, params);
}

/** The redirect that carries a result to the app: its URI with `params` added to the query. */
export function redirectTo(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
  return url.toString();
}

/**
 * The user's answer, given by a caller already authenticated (ctx.user) with a token that may manage credentials (a
 * full token, or a scoped one with `admin`, as for POST /token): Deny, or a code for the scopes and resources asked —
 * each within the approving token's own (a scoped token grants no more than it holds), each resource one the user
 * can read, and no token of the grant outliving the approving token. Answers the URL to send the browser to.
 */
export async function decideAuthorization(
  ctx: ServiceContext,
  input: { checked: CheckedRequest; approve: boolean },
): Promise<string> {
  const { checked } = input;
  const { redirectUri, state } = checked;
  if (!input.approve) return redirectTo(redirectUri, { error: "access_denied", state });
  let scopes: string[];
  let resources;
  try {
    scopes = narrowScopes(ctx.user.tokenScopes, checked.scopes) ?? checked.scopes;
    resources = await resolveResources(ctx, checked.resources.length ? checked.resources : undefined);
  } catch (err) {
    if (err instanceof ApiError && (err.code === "ForbiddenError" || err.code === "ValidationError"))
      throw new OAuthError(
        "access_denied",
        `Your token cannot grant this: ${err.details?.[0]?.message ?? err.message}`,
        403,
      );
    throw err;
  }
  const code = randomBase62(43);
  await ctx.db.insert(oauthCodes).values({
    codeHash: await sha256Hex(code),
    clientId: checked.app.clientId,
    userId: ctx.user.id,
    redirectUri,
    codeChallenge: checked.codeChallenge,
    scopes,
    resources,
    expiresAt: ctx.now + CODE_TTL_MS,
    // An expiring token cannot hand out a grant that outlives it (as POST /token cannot).
    grantExpiresAt: ctx.user.tokenExpiresAt,
  });
  return redirectTo(redirectUri, { code, state });
}
