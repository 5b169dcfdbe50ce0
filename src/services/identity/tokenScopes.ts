/**
 * What a new scoped token may carry (docs/api-guide.md › Tokens and scopes): its scopes within the issuing token's,
 * and its resources resolved to the organizations, workspaces and projects they name — each one the caller can
 * read, and inside the issuing token's own resources — so the access checks compare ids only (src/auth/tokenLimits.ts).
 */
import type { TokenResources } from "../../db/schema";
import { validation } from "../../errors";
import { missingScope, scopesAllow, type Scope } from "../../auth/scopes";
import { outsideResources, tokenResources } from "../../auth/tokenLimits";
import type { ServiceContext } from "../context";
import { resourceLookupStatement } from "./queries";

/** The new token's scopes: those asked for, each within the caller's (a scoped caller's own when none are asked). */
export function narrowScopes(caller: string[] | null, asked: string[] | undefined): string[] | null {
  if (!asked) return caller;
  for (const scope of asked) if (!scopesAllow(caller, scope as Scope)) throw missingScope(scope);
  return [...new Set(asked)];
}

/**
 * The resources a new token is limited to, resolved (one round trip of latency, every shard at once). A scoped
 * caller's own resources when none are asked; an id that is unknown, unreadable or outside the caller's resources
 * is 400 (the same answer for each, so no id can be probed).
 */
export async function resolveResources(ctx: ServiceContext, ids: string[] | undefined): Promise<TokenResources | null> {
  if (!ids) return tokenResources();
  const unique = [...new Set(ids)];
  const found = await Promise.all(
    unique.map(async (id) => (await resourceLookupStatement(ctx.on(id).db, ctx.user.id, id))[0]),
  );
  const out: TokenResources = { ids: unique, workspaceIds: [], projectIds: [] };
  found.forEach((f, i) => {
    if (!f || outsideResources(f))
      throw validation("A resource is not an organization, workspace or project you can read", [
        {
          path: `resources.${ids.indexOf(unique[i]!)}`,
          message: "not an organization, workspace or project you can read",
        },
      ]);
    if (f.kind === "organization") out.workspaceIds.push(...(JSON.parse(f.workspaces ?? "[]") as string[]));
    if (f.kind === "workspace") out.workspaceIds.push(f.workspaceId!);
    if (f.kind === "project") out.projectIds.push(f.projectId!);
  });
  out.workspaceIds = [...new Set(out.workspaceIds)];
  return out;
}
