/**
 * Portal password attempts (docs/api-guide.md, "Limits"): 10 a minute per client address and portal, and 100 a
 * minute per portal across all addresses, so no client escapes the limit by rotating addresses. Shared by E14's login
 * and the reader site's form, keyed by the entry's own slug however the request named it.
 */
import type { Env } from "../env";
import { clientAddress } from "./clientAddress";

/** The period of both PORTAL_LOGIN_* bindings (wrangler.toml); what Retry-After says. */
export const LOGIN_PERIOD_SECONDS = 60;

/** The client address the per-address limit is keyed by: the service's one rule (src/http/clientAddress.ts). */
export function loginClientAddress(request: Request, env: Env): string {
  return clientAddress(request.headers, env);
}

/**
 * Spends one attempt on the entry `entrySlug`: false when either budget is exhausted (answer 429 with Retry-After).
 * The per-address budget is checked first, so one address that is already refused does not drain the portal's.
 */
export async function spendPortalLogin(env: Env, request: Request, entrySlug: string): Promise<boolean> {
  const perAddress = env.PORTAL_LOGIN_LIMITER;
  if (
    perAddress &&
    !(await perAddress.limit({ key: `${loginClientAddress(request, env)}|portal:${entrySlug}` })).success
  )
    return false;
  const perPortal = env.PORTAL_LOGIN_PORTAL_LIMITER;
  if (perPortal && !(await perPortal.limit({ key: `portal:${entrySlug}` })).success) return false;
  return true;
}
