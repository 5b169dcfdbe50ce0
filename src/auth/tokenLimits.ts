/**
 * The resources a scoped token is limited to (docs/api-guide.md › Tokens and scopes), for the access checks of
 * ./access.ts and ./organizationAccess.ts: a record outside them is answered as one the caller cannot read (404).
 * The token's row (read in the batched authentication, no extra round trip) says which; the request's limits live
 * in an AsyncLocalStorage that every route's middleware opens (src/http/route.ts), since the access checks are pure
 * functions of the rows they are given and take no context.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { TokenResources } from "../db/schema";

interface RequestLimits {
  resources: TokenResources | null;
}

const current = new AsyncLocalStorage<RequestLimits>();

/** Runs a request's remaining work with room for its token's limits. */
export function withTokenLimits<T>(run: () => T): T {
  return current.run({ resources: null }, run);
}

/** Records the authenticated token's resources (null: not limited). */
export function limitToResources(resources: TokenResources | null) {
  const store = current.getStore();
  if (store) store.resources = resources;
}

/** The request's resource limits (null when the token has none, or outside a request). */
export function tokenResources(): TokenResources | null {
  return current.getStore()?.resources ?? null;
}

/**
 * Whether a record is outside the token's resources: `organizationId`, `workspaceId` and `projectId` are the
 * record's own or its ancestors' (any may be unknown).
 */
export function outsideResources(at: {
  organizationId?: string | null;
  workspaceId?: string | null;
  projectId?: string | null;
}) {
  const limits = tokenResources();
  if (!limits) return false;
  if (at.organizationId && limits.ids.includes(at.organizationId)) return false;
  if (at.workspaceId && limits.workspaceIds.includes(at.workspaceId)) return false;
  if (at.projectId && limits.projectIds.includes(at.projectId)) return false;
  return true;
}
