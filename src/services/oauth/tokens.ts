/**
 * The token endpoint and revocation of OAuth 2.1 (docs/api-guide.md › OAuth apps). An access token is a scoped token
 * (`cws_…`, src/services/identity/tokens.ts) with the grant's scopes and resources and a one-hour expiry; a refresh
 * token (`cwr_…`) is single use: redeeming it rotates it, and presenting a rotated one again revokes the grant (every
 * refresh token of the family and its access token). A code is single use too: a second redemption revokes what the
 * first one issued. Each step checks the client's secret in the statement that consumes the code or refresh token, so
 * no one without the secret can spend them.
 */
import { and, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import type { TokenResources } from "../../db/schema";
import { accessTokens, oauthApps, oauthCodes, oauthRefreshTokens } from "../../db/schema";
import { base64UrlEncode } from "../../lib/base64";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { prepareToken } from "../identity/tokens";
import type { ServiceContext } from "../context";
import { OAuthError } from "./errors";

export const ACCESS_TOKEN_TTL_MS = 60 * 60_000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60_000;
export const REFRESH_PREFIX = "cwr_";

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
}

export interface TokenAnswer {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

function clientStatements(ctx: ServiceContext, client: ClientCredentials, secretHash: string) {
  return {
    app: ctx.db
      .select({ id: oauthApps.id, name: oauthApps.name })
      .from(oauthApps)
      .where(and(eq(oauthApps.id, client.clientId), eq(oauthApps.secretHash, secretHash))),
    /** True when the client id and secret match, inside a statement that spends a code or a refresh token. */
    authenticated: sql`EXISTS (SELECT 1 FROM oauth_apps a WHERE a.id = ${client.clientId} AND a.secret_hash = ${secretHash})`,
  };
}

const invalidClient = () => new OAuthError("invalid_client", "Unknown client_id or wrong client_secret", 401);
const invalidGrant = (why: string) => new OAuthError("invalid_grant", why);

/** Revokes a grant: its access tokens and all of its refresh tokens. */
function revokeGrantStatements(ctx: ServiceContext, grantId: string) {
  return [
    ctx.db
      .delete(accessTokens)
      .where(
        inArray(
          accessTokens.id,
          ctx.db
            .select({ id: oauthRefreshTokens.accessTokenId })
            .from(oauthRefreshTokens)
            .where(eq(oauthRefreshTokens.grantId, grantId)),
        ),
      ),
    ctx.db.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.grantId, grantId)),
  ] as const;
}

/** A new access and refresh token for a grant, and the statements that store them. */
async function issue(
  ctx: ServiceContext,
  grant: {
    grantId: string;
    clientId: string;
    appName: string;
    userId: string;
    scopes: string[];
    resources: TokenResources | null;
    grantExpiresAt: number | null;
  },
) {
  const cap = grant.grantExpiresAt ?? Number.MAX_SAFE_INTEGER;
  if (cap <= ctx.now) throw invalidGrant("The token that approved this grant has expired");
  const { record, insert } = await prepareToken(ctx, {
    userId: grant.userId,
    name: `OAuth: ${grant.appName}`.slice(0, 500),
    expiresAt: Math.min(ctx.now + ACCESS_TOKEN_TTL_MS, cap),
    scopes: grant.scopes,
    resources: grant.resources,
  });
  const refreshToken = `${REFRESH_PREFIX}${randomBase62(48)}`;
  const refreshInsert = ctx.db.insert(oauthRefreshTokens).values({
    tokenHash: await sha256Hex(refreshToken),
    grantId: grant.grantId,
    clientId: grant.clientId,
    userId: grant.userId,
    scopes: grant.scopes,
    resources: grant.resources,
    accessTokenId: record._id,
    createdAt: ctx.now,
    expiresAt: Math.min(ctx.now + REFRESH_TOKEN_TTL_MS, cap),
    grantExpiresAt: grant.grantExpiresAt,
  });
  const answer: TokenAnswer = {
    access_token: record.token,
    token_type: "Bearer",
    expires_in: Math.round((Math.min(ctx.now + ACCESS_TOKEN_TTL_MS, cap) - ctx.now) / 1000),
    refresh_token: refreshToken,
    scope: grant.scopes.join(" "),
  };
  return { answer, statements: [insert, refreshInsert] as const };
}

/** grant_type=authorization_code: the code, once, by the app it was issued to, with the PKCE verifier. */
export async function redeemCode(
  ctx: ServiceContext,
  input: ClientCredentials & { code: string; redirectUri: string | null; codeVerifier: string },
): Promise<TokenAnswer> {
  const secretHash = await sha256Hex(input.clientSecret);
  const codeHash = await sha256Hex(input.code);
  const client = clientStatements(ctx, input, secretHash);
  const [apps, spent, seen] = await ctx.db.batch([
    client.app,
    ctx.db
      .update(oauthCodes)
      .set({ usedAt: ctx.now })
      .where(
        and(
          eq(oauthCodes.codeHash, codeHash),
          eq(oauthCodes.clientId, input.clientId),
          isNull(oauthCodes.usedAt),
          client.authenticated,
        ),
      )
      .returning(),
    ctx.db
      .select({ clientId: oauthCodes.clientId, grantId: oauthCodes.grantId })
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, codeHash)),
  ]);
  const app = apps[0];
  if (!app) throw invalidClient();
  const code = spent[0];
  if (!code) {
    // Redeemed before: whatever that redemption issued is revoked (RFC 9700 §4.5).
    const earlier = seen[0];
    if (earlier?.clientId === input.clientId && earlier.grantId)
      await ctx.db.batch(revokeGrantStatements(ctx, earlier.grantId));
    throw invalidGrant("The code is unknown, expired or already used");
  }
  if (code.expiresAt <= ctx.now) throw invalidGrant("The code is unknown, expired or already used");
  if (input.redirectUri !== null && input.redirectUri !== code.redirectUri)
    throw invalidGrant("redirect_uri differs from the authorization request's");
  if (!VERIFIER.test(input.codeVerifier)) throw invalidGrant("code_verifier must be 43 to 128 unreserved characters");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(input.codeVerifier));
  if (base64UrlEncode(new Uint8Array(digest)) !== code.codeChallenge)
    throw invalidGrant("code_verifier does not match the code_challenge");
  const grantId = newId();
  const { answer, statements } = await issue(ctx, {
    grantId,
    clientId: app.id,
    appName: app.name,
    userId: code.userId,
    scopes: code.scopes,
    resources: code.resources ?? null,
    grantExpiresAt: code.grantExpiresAt,
  });
  await ctx.db.batch([
    ...statements,
    ctx.db.update(oauthCodes).set({ grantId }).where(eq(oauthCodes.codeHash, codeHash)),
  ]);
  return answer;
}

/**
 * grant_type=refresh_token: rotates the refresh token (the old one is spent, the grant's previous access token
 * revoked); a spent one presented again revokes the whole grant. `scope` may narrow the grant's scopes.
 */
export async function refreshGrant(
  ctx: ServiceContext,
  input: ClientCredentials & { refreshToken: string; scope: string | null },
): Promise<TokenAnswer> {
  const secretHash = await sha256Hex(input.clientSecret);
  const tokenHash = await sha256Hex(input.refreshToken);
  const client = clientStatements(ctx, input, secretHash);
  const [apps, spent, seen] = await ctx.db.batch([
    client.app,
    ctx.db
      .update(oauthRefreshTokens)
      .set({ rotatedAt: ctx.now })
      .where(
        and(
          eq(oauthRefreshTokens.tokenHash, tokenHash),
          eq(oauthRefreshTokens.clientId, input.clientId),
          isNull(oauthRefreshTokens.rotatedAt),
          gt(oauthRefreshTokens.expiresAt, ctx.now),
          client.authenticated,
        ),
      )
      .returning(),
    ctx.db
      .select({
        clientId: oauthRefreshTokens.clientId,
        grantId: oauthRefreshTokens.grantId,
        rotatedAt: oauthRefreshTokens.rotatedAt,
      })
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, tokenHash)),
  ]);
  const app = apps[0];
  if (!app) throw invalidClient();
  const old = spent[0];
  if (!old) {
    const earlier = seen[0];
    if (earlier?.clientId === input.clientId && earlier.rotatedAt !== null)
      await ctx.db.batch(revokeGrantStatements(ctx, earlier.grantId));
    throw invalidGrant("The refresh token is unknown, expired, revoked or already used");
  }
  let scopes = old.scopes;
  if (input.scope !== null) {
    const asked = [...new Set(input.scope.split(" ").filter(Boolean))];
    if (asked.length === 0 || asked.some((s) => !old.scopes.includes(s)))
      throw new OAuthError("invalid_scope", "scope may only narrow the scopes the user granted");
    scopes = asked;
  }
  const { answer, statements } = await issue(ctx, {
    grantId: old.grantId,
    clientId: app.id,
    appName: app.name,
    userId: old.userId,
    scopes,
    resources: old.resources ?? null,
    grantExpiresAt: old.grantExpiresAt,
  });
  await ctx.db.batch([...statements, ctx.db.delete(accessTokens).where(eq(accessTokens.id, old.accessTokenId))]);
  return answer;
}

/**
 * RFC 7009: a refresh token revokes its whole grant; an access token, itself. Only the app's own tokens; an unknown
 * token is not an error (the answer is the same either way).
 */
export async function revokeOAuthToken(ctx: ServiceContext, input: ClientCredentials & { token: string }) {
  const secretHash = await sha256Hex(input.clientSecret);
  const hash = await sha256Hex(input.token);
  const client = clientStatements(ctx, input, secretHash);
  const [apps, grants] = await ctx.db.batch([
    client.app,
    ctx.db
      .select({ grantId: oauthRefreshTokens.grantId })
      .from(oauthRefreshTokens)
      .where(
        and(
          eq(oauthRefreshTokens.clientId, input.clientId),
          sql`(${oauthRefreshTokens.tokenHash} = ${hash} OR ${oauthRefreshTokens.accessTokenId} IN (SELECT id FROM access_tokens WHERE token_hash = ${hash}))`,
        ),
      )
      .limit(1),
  ]);
  if (!apps[0]) throw invalidClient();
  const grantId = grants[0]?.grantId;
  if (!grantId) return;
  if (input.token.startsWith(REFRESH_PREFIX)) await ctx.db.batch(revokeGrantStatements(ctx, grantId));
  else await ctx.db.delete(accessTokens).where(eq(accessTokens.tokenHash, hash));
}
