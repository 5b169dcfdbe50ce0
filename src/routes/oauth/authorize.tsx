/** @jsxImportSource hono/jsx */
/**
 * GET /oauth/authorize shows the consent page (src/site/consent.tsx); POST /oauth/authorize is its form: the user's
 * token and choice (docs/api-guide.md › OAuth apps). Both are public in the API's sense (no Authorization header): the
 * POST authenticates the token it carries, as any request's bearer token is (failures count against the client
 * address, the same limits apply).
 */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { bearerCredential, completeAuthentication, tokenStatement } from "../../auth/authenticate";
import { ApiError } from "../../errors";
import { clientAddress } from "../../http/clientAddress";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, onlyErrorResponses, type Router } from "../../openapi";
import { actingAs, type ServiceContext } from "../../services/context";
import { Principal } from "../../services/principal";
import {
  checkAuthorizeRequest,
  decideAuthorization,
  RedirectedError,
  redirectTo,
  UnsafeRedirect,
  type AuthorizeParams,
  type CheckedRequest,
} from "../../services/oauth/authorize";
import { OAuthError } from "../../services/oauth/errors";
import { ConsentPage, consentHeaders, OAuthProblemPage } from "../../site/consent";

// Bounded only by what a URL can carry at the edge (16 KB): a request the app got wrong is answered on the page or at
// its redirect URI, not as a JSON validation error.
const param = (description: string) => z.string().max(16_384).optional().openapi({ description });

const AuthorizeQuery = z.object({
  response_type: param("`code`"),
  client_id: param("The app's client id"),
  redirect_uri: param("One of the app's registered redirect URIs, exactly (optional when it registered one)"),
  scope: param("Space-separated scopes of docs/api-guide.md › Tokens and scopes, e.g. `documents:read tables:write`"),
  state: param("Returned to the app unchanged"),
  code_challenge: param("PKCE: base64url(SHA-256(code_verifier)), 43 characters"),
  code_challenge_method: param("`S256` (the only method)"),
  resource: param("Organization, workspace or project ids the access is limited to, space-separated (or repeated)"),
});

const html = (description: string) => ({ description, content: { "text/html": { schema: z.string() } } });
const redirect = {
  description: "To the app's redirect URI with `code` and `state`, or with `error` (RFC 6749 §4.1.2)",
  headers: { Location: { schema: { type: "string" as const } } },
};

const show = defineRoute({
  operationId: "authorizeOAuth",
  auth: "public",
  method: "get",
  path: "/oauth/authorize",
  roundTrips: 1,
  tags: ["OAuth"],
  summary: "The consent page of an authorization request (code + PKCE S256)",
  description:
    "Shows the app's name, the scopes and the resources asked for, and a form to approve or deny with one of your tokens. " +
    "An unknown client or a redirect URI the app did not register is shown here (400), never redirected; other mistakes " +
    "are sent to the redirect URI as `error` (`unsupported_response_type`, `invalid_request`, `invalid_scope`, `invalid_target`).",
  security: [],
  request: { query: AuthorizeQuery },
  responses: {
    200: html("The consent page"),
    302: redirect,
    400: html("The request cannot be sent back to the app"),
    ...onlyErrorResponses("InternalError"),
  },
});

const decide = defineRoute({
  operationId: "approveOAuth",
  auth: "public",
  method: "post",
  path: "/oauth/authorize",
  // The token, the app, the resources asked for (every shard at once), the code.
  roundTrips: 4,
  tags: ["OAuth"],
  summary: "Approve or deny an authorization request (the consent form)",
  description:
    "The consent page's form: the request's parameters, `token` (one of the user's tokens; a scoped token grants at most " +
    "its own scopes and resources) and `decision` (`approve` or `deny`). Approving redirects to the app with a code " +
    "(single use, 5 minutes); denying with `error=access_denied`. A wrong token shows the page again (401).",
  security: [],
  request: {
    body: {
      content: {
        "application/x-www-form-urlencoded": {
          schema: AuthorizeQuery.extend({ token: param("One of your tokens"), decision: param("`approve` or `deny`") }),
        },
      },
    },
  },
  responses: {
    302: redirect,
    ...errorResponses(),
    ...onlyErrorResponses("PayloadTooLargeError", "UnsupportedMediaTypeError"),
    400: html("The request cannot be sent back to the app"),
    401: html("The token is unknown, revoked or expired: the page again"),
    403: html("The token cannot grant what is asked: the page again"),
  },
});

function problemPage(c: Context<HonoEnv>, message: string) {
  return c.html(`<!DOCTYPE html>${String(<OAuthProblemPage message={message} />)}`, 400, consentHeaders(null));
}

function consentPage(
  c: Context<HonoEnv>,
  checked: CheckedRequest,
  params: AuthorizeParams,
  status: 200 | 401 | 403,
  problem?: string,
) {
  const page = <ConsentPage checked={checked} params={params} problem={problem ?? null} />;
  return c.html(`<!DOCTYPE html>${String(page)}`, status, consentHeaders(new URL(checked.redirectUri).origin));
}

/** The request's outcome when it cannot be shown: a page for an unsafe redirect, else the app's redirect URI. */
function refused(c: Context<HonoEnv>, err: unknown) {
  if (err instanceof UnsafeRedirect) return problemPage(c, err.message);
  if (err instanceof RedirectedError)
    return c.redirect(
      redirectTo(err.redirectUri, { error: err.error, error_description: err.message, state: err.state }),
      302,
    );
  throw err;
}

/**
 * Authenticates the token the form carries, as a bearer token is (src/http/routeAuth.ts): one round trip. Approving
 * issues credentials, so a scoped token needs `admin` (as POST /token does).
 */
async function asTokenOwner(c: Context<HonoEnv>, token: string): Promise<ServiceContext> {
  const attempt = { env: c.env, address: clientAddress(c.req.raw.headers, c.env), onPrimary: true, scope: "admin" };
  const credential = await bearerCredential(token ? `Bearer ${token}` : undefined, attempt);
  const principal = new Principal(credential.hash, null, credential.userId);
  const ctx = actingAs(ctxOf(c), principal);
  const rows = await tokenStatement(ctx.dir, credential.hash);
  const { touch } = await completeAuthentication(ctx.dir, attempt, principal, rows, ctx.now);
  await touch;
  return ctx;
}

function paramsOf(source: Record<string, string | undefined>, resources: string[]): AuthorizeParams {
  const { response_type, client_id, redirect_uri, scope, state, code_challenge, code_challenge_method } = source;
  return {
    response_type,
    client_id,
    redirect_uri,
    scope,
    state,
    code_challenge,
    code_challenge_method,
    resource: resources.join(" "),
  };
}

export function registerOAuthAuthorize(app: Router) {
  app.openapi(show, async (c) => {
    const params = paramsOf(c.req.valid("query"), c.req.queries("resource") ?? []);
    try {
      return consentPage(c, await checkAuthorizeRequest(ctxOf(c), params), params, 200);
    } catch (err) {
      return refused(c, err);
    }
  });
  app.openapi(decide, async (c) => {
    const form = c.req.valid("form");
    const params = paramsOf(form, form.resource ? [form.resource] : []);
    let checked: CheckedRequest;
    try {
      checked = await checkAuthorizeRequest(ctxOf(c), params);
    } catch (err) {
      return refused(c, err);
    }
    try {
      const approve = form.decision === "approve";
      const ctx = approve ? await asTokenOwner(c, form.token ?? "") : ctxOf(c);
      return c.redirect(await decideAuthorization(ctx, { checked, approve }), 302);
    } catch (err) {
      if (err instanceof ApiError && err.code === "UnauthorizedError")
        return consentPage(c, checked, params, 401, err.message);
      if (err instanceof ApiError && err.code === "ForbiddenError")
        return consentPage(c, checked, params, 403, `${err.message} (${err.details?.[0]?.message ?? "forbidden"})`);
      if (err instanceof OAuthError) return consentPage(c, checked, params, 403, err.message);
      return refused(c, err);
    }
  });
}
