import type { Tenant } from "../support/harness";

/**
 * One route as the shared security suite exercises it. The suite sends it with no token, a bogus token and a
 * revoked token (all 401), with an outsider's token (the `outsider` expectation), and for writes with a
 * workspace viewer's token (403).
 */
export interface SecurityCase {
  name: string;
  method: string;
  path: string;
  body?: unknown;
  raw?: () => BodyInit;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  /** What a valid token of someone with no access gets. Default: 404 NotFoundError. */
  outsider?: { status: number; error?: string; body?: unknown };
  /** A write that a workspace viewer may not perform (403 ForbiddenError). */
  viewerForbidden?: boolean;
}

export type CaseFactory = (t: Tenant) => Promise<SecurityCase[]>;
