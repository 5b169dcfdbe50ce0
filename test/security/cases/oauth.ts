import type { CaseFactory, SecurityCase } from "../types";

/**
 * OAuth apps of an organization (docs/api-guide.md › OAuth apps): owner or admin only, so an outsider gets 404 like
 * any organization it cannot read. The OAuth protocol endpoints (/oauth/…, /.well-known/…) take no bearer token:
 * test/routes/oauth/ covers their refusals (unknown client, wrong secret, reused code or refresh token).
 */
export const oauthCases: CaseFactory = async (t): Promise<SecurityCase[]> => [
  {
    name: "POST /organization/{organizationId}/oauth-app",
    method: "POST",
    path: `/organization/${t.organizationId}/oauth-app`,
    body: { name: "Security app", redirectUris: ["https://app.example/cb"] },
  },
  {
    name: "GET /organization/{organizationId}/oauth-app/all",
    method: "GET",
    path: `/organization/${t.organizationId}/oauth-app/all`,
  },
  {
    name: "DELETE /organization/{organizationId}/oauth-app/{clientId}",
    method: "DELETE",
    path: `/organization/${t.organizationId}/oauth-app/01JD5Y7X9Q0000000000000000`,
  },
];
