/**
 * The OAuth token endpoint, revocation and the authorization server's metadata (docs/api-guide.md › OAuth apps).
 * Bodies are `application/x-www-form-urlencoded` as RFC 6749 asks; clients authenticate with HTTP Basic
 * (`client_secret_basic`) or `client_id` and `client_secret` in the body (`client_secret_post`). Errors carry the
 * protocol's code in `error` (`invalid_grant`, `invalid_client`, …) and the reason in `message`.
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { ALL_SCOPES } from "../../auth/scopes";
import { decodeBase64 } from "../../lib/base64";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonResponse, onlyErrorResponses, type Router } from "../../openapi";
import { OAuthError } from "../../services/oauth/errors";
import { redeemCode, refreshGrant, revokeOAuthToken, type ClientCredentials } from "../../services/oauth/tokens";

const field = (description: string) => z.string().max(4096).optional().openapi({ description });
const clientFields = {
  client_id: field("The app's client id (client_secret_post; or HTTP Basic)"),
  client_secret: field("The app's client secret (client_secret_post; or HTTP Basic)"),
};
const form = <T extends z.ZodRawShape>(shape: T) => ({
  body: { content: { "application/x-www-form-urlencoded": { schema: z.object({ ...clientFields, ...shape }) } } },
});

const TokenAnswerSchema = z
  .object({
    access_token: z.string().openapi({ description: "A scoped token (cws_…) with the grant's scopes and resources" }),
    token_type: z.literal("Bearer"),
    expires_in: z.number().int(),
    refresh_token: z.string().openapi({ description: "Single use: redeeming it rotates it" }),
    scope: z.string(),
  })
  .openapi("OAuthTokens");

const formErrors = { ...onlyErrorResponses("PayloadTooLargeError", "UnsupportedMediaTypeError") };

const token = defineRoute({
  operationId: "exchangeOAuthToken",
  auth: "public",
  method: "post",
  path: "/oauth/token",
  // The client with the code (or refresh token) it spends, then the tokens it gets (a reuse: the grant's revocation).
  roundTrips: 2,
  tags: ["OAuth"],
  summary: "Redeem a code or a refresh token for tokens",
  description:
    "`grant_type=authorization_code` with `code`, `redirect_uri` and the PKCE `code_verifier`; or `grant_type=refresh_token` " +
    "with `refresh_token` (and optionally a narrower `scope`). A code is single use and lives 5 minutes; a refresh token is " +
    "single use, lives 30 days, and is rotated: presenting a spent one revokes the whole grant. The access token lives one hour.",
  security: [],
  request: form({
    grant_type: field("`authorization_code` or `refresh_token`"),
    code: field("The code from the redirect"),
    redirect_uri: field("The redirect URI of the authorization request"),
    code_verifier: field("PKCE: the verifier whose S256 challenge the request carried"),
    refresh_token: field("A refresh token (grant_type=refresh_token)"),
    scope: field("With refresh_token: a subset of the granted scopes"),
  }),
  responses: {
    200: jsonResponse(TokenAnswerSchema, "The tokens (Cache-Control: no-store)"),
    ...errorResponses(),
    ...formErrors,
  },
});

const revoke = defineRoute({
  operationId: "revokeOAuthToken",
  auth: "public",
  method: "post",
  path: "/oauth/revoke",
  roundTrips: 2,
  tags: ["OAuth"],
  summary: "Revoke an access or refresh token (RFC 7009)",
  description:
    "A refresh token revokes its whole grant (every refresh token and the access token); an access token, itself. " +
    "Only the app's own tokens; an unknown token answers 200 as well.",
  security: [],
  request: form({
    token: field("The token to revoke"),
    token_type_hint: field("`access_token` or `refresh_token` (not needed)"),
  }),
  responses: { 200: { description: "Revoked, or not the app's token" }, ...errorResponses(), ...formErrors },
});

const metadata = defineRoute({
  operationId: "getOAuthMetadata",
  auth: "public",
  method: "get",
  path: "/.well-known/oauth-authorization-server",
  roundTrips: 0,
  tags: ["OAuth"],
  summary: "OAuth authorization server metadata (RFC 8414)",
  description:
    "The endpoints (`authorization_endpoint`, `token_endpoint`, `revocation_endpoint`), `S256` PKCE, the grant types, the client authentication methods and the scopes; no token needed.",
  security: [],
  responses: {
    200: jsonResponse(z.record(z.string(), z.unknown()), "The metadata"),
    ...onlyErrorResponses("InternalError"),
  },
});

/** The client's id and secret, from HTTP Basic (RFC 6749 §2.3.1: each form-encoded) or from the body. */
function clientOf(c: Context<HonoEnv>, body: { client_id?: string; client_secret?: string }): ClientCredentials {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (basic) {
    const bytes = decodeBase64(basic);
    if (!bytes) throw new OAuthError("invalid_client", "The Basic credentials are not base64", 401);
    const decoded = new TextDecoder().decode(bytes);
    const at = decoded.indexOf(":");
    const unform = (s: string) => {
      try {
        return decodeURIComponent(s.replace(/\+/g, " "));
      } catch {
        return s;
      }
    };
    if (at > 0) return { clientId: unform(decoded.slice(0, at)), clientSecret: unform(decoded.slice(at + 1)) };
  }
  if (!body.client_id || !body.client_secret)
    throw new OAuthError(
      "invalid_client",
      "Client authentication is required (HTTP Basic, or client_id and client_secret)",
      401,
    );
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

function oauthError(c: Context<HonoEnv>, err: unknown) {
  if (!(err instanceof OAuthError)) throw err;
  const headers: Record<string, string> = { "Cache-Control": "no-store" };
  if (err.status === 401) headers["WWW-Authenticate"] = 'Basic realm="oauth"';
  return c.json({ error: err.code, message: err.message }, err.status, headers) as never;
}

const missing = (name: string) => new OAuthError("invalid_request", `${name} is required`);

export function registerOAuthToken(app: Router) {
  app.openapi(token, async (c) => {
    const body = c.req.valid("form");
    try {
      const client = clientOf(c, body);
      const ctx = ctxOf(c);
      let answer;
      if (body.grant_type === "authorization_code") {
        if (!body.code) throw missing("code");
        if (!body.code_verifier) throw missing("code_verifier");
        answer = await redeemCode(ctx, {
          ...client,
          code: body.code,
          redirectUri: body.redirect_uri ?? null,
          codeVerifier: body.code_verifier,
        });
      } else if (body.grant_type === "refresh_token") {
        if (!body.refresh_token) throw missing("refresh_token");
        answer = await refreshGrant(ctx, { ...client, refreshToken: body.refresh_token, scope: body.scope ?? null });
      } else throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
      return c.json(answer, 200, { "Cache-Control": "no-store" });
    } catch (err) {
      return oauthError(c, err);
    }
  });
  app.openapi(revoke, async (c) => {
    const body = c.req.valid("form");
    try {
      const client = clientOf(c, body);
      if (!body.token) throw missing("token");
      await revokeOAuthToken(ctxOf(c), { ...client, token: body.token });
      return c.body(null, 200);
    } catch (err) {
      return oauthError(c, err);
    }
  });
  app.openapi(metadata, (c) => {
    const origin = new URL(c.req.url).origin;
    return c.json(
      {
        issuer: origin,
        authorization_endpoint: `${origin}/oauth/authorize`,
        token_endpoint: `${origin}/oauth/token`,
        revocation_endpoint: `${origin}/oauth/revoke`,
        response_types_supported: ["code"],
        response_modes_supported: ["query"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        revocation_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
        scopes_supported: [...ALL_SCOPES],
        service_documentation: `${origin}/docs`,
      },
      200,
    );
  });
}
