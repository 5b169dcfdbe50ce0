/**
 * OAuth apps (docs/api-guide.md › OAuth apps): registered by an organization's owner or admin, kept in the directory
 * (the token endpoint knows only a client id). The client secret is shown once; only its SHA-256 hash is stored.
 * Deleting an app revokes every grant it holds: its codes, refresh tokens and the access tokens issued with them.
 */
import { and, desc, eq, inArray } from "drizzle-orm";
import { checkOrganizationAccess, organizationAccessStatement } from "../../auth/organizationAccess";
import { accessTokens, oauthApps, oauthCodes, oauthRefreshTokens } from "../../db/schema";
import { notFound, validation } from "../../errors";
import { randomBase62, sha256Hex } from "../../lib/crypto";
import { newId } from "../../lib/ids";
import { read, type ServiceContext } from "../context";

export const CLIENT_SECRET_PREFIX = "cwcs_";
/** Apps per organization, and redirect URIs per app (docs/api-guide.md › Limits). */
export const MAX_OAUTH_APPS = 50;
export const MAX_REDIRECT_URIS = 10;

function appDto(row: typeof oauthApps.$inferSelect) {
  return { clientId: row.id, name: row.name, redirectUris: row.redirectUris, createdAt: row.createdAt };
}

/**
 * A redirect URI an app may register: absolute https, or http on a loopback host (native apps, RFC 8252), without a
 * fragment. It is then matched exactly.
 */
export function checkRedirectUris(uris: string[]) {
  uris.forEach((uri, i) => {
    let url: URL | null = null;
    try {
      url = new URL(uri);
    } catch {
      url = null;
    }
    const loopback = url && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
    const ok =
      url && !url.hash && !uri.includes("#") && (url.protocol === "https:" || (url.protocol === "http:" && loopback));
    if (!ok)
      throw validation(
        "A redirect URI must be an absolute https URL (http only on a loopback host), without a fragment",
        [{ path: `redirectUris.${i}`, message: "not an https URL (or http on localhost) without a fragment" }],
      );
  });
}

/** Registers an app of the organization (owner or admin): `{ clientId, clientSecret, … }`, the secret shown only here. */
export async function createOAuthApp(
  ctx: ServiceContext,
  input: { organizationId: string; name: string; redirectUris: string[] },
) {
  checkRedirectUris(input.redirectUris);
  const [orgRows] = await read(ctx, [organizationAccessStatement(ctx.db, ctx.user.ref, input.organizationId)]);
  checkOrganizationAccess(orgRows[0], "admin");
  const existing = await ctx.dir
    .select({ id: oauthApps.id })
    .from(oauthApps)
    .where(eq(oauthApps.organizationId, input.organizationId))
    .limit(MAX_OAUTH_APPS);
  if (existing.length >= MAX_OAUTH_APPS)
    throw validation(`An organization registers at most ${MAX_OAUTH_APPS} OAuth apps`, [
      { path: "organizationId", message: `has ${MAX_OAUTH_APPS} apps already` },
    ]);
  const clientSecret = `${CLIENT_SECRET_PREFIX}${randomBase62(40)}`;
  const row = {
    id: newId(),
    organizationId: input.organizationId,
    name: input.name,
    redirectUris: [...new Set(input.redirectUris)],
    secretHash: await sha256Hex(clientSecret),
    createdBy: ctx.user.id,
    createdAt: ctx.now,
  };
  await ctx.dir.insert(oauthApps).values(row);
  return { ...appDto(row), organizationId: row.organizationId, clientSecret };
}

/** The organization's apps, newest first, without secrets (owner or admin). */
export async function listOAuthApps(ctx: ServiceContext, input: { organizationId: string }) {
  const [orgRows] = await read(ctx, [organizationAccessStatement(ctx.db, ctx.user.ref, input.organizationId)]);
  checkOrganizationAccess(orgRows[0], "admin");
  const rows = await ctx.dir
    .select()
    .from(oauthApps)
    .where(eq(oauthApps.organizationId, input.organizationId))
    .orderBy(desc(oauthApps.createdAt));
  return rows.map(appDto);
}

/** Deletes an app and revokes everything it was granted; another organization's app is 404 like a missing one. */
export async function deleteOAuthApp(ctx: ServiceContext, input: { organizationId: string; clientId: string }) {
  const [orgRows] = await read(ctx, [organizationAccessStatement(ctx.db, ctx.user.ref, input.organizationId)]);
  checkOrganizationAccess(orgRows[0], "admin");
  const { clientId } = input;
  // The access tokens first, while the app still names its organization (another organization's app matches nothing).
  const [, deleted] = await ctx.dir.batch([
    ctx.dir.delete(accessTokens).where(
      inArray(
        accessTokens.id,
        ctx.dir
          .select({ id: oauthRefreshTokens.accessTokenId })
          .from(oauthRefreshTokens)
          .innerJoin(oauthApps, eq(oauthApps.id, oauthRefreshTokens.clientId))
          .where(and(eq(oauthRefreshTokens.clientId, clientId), eq(oauthApps.organizationId, input.organizationId))),
      ),
    ),
    ctx.dir
      .delete(oauthApps)
      .where(and(eq(oauthApps.id, clientId), eq(oauthApps.organizationId, input.organizationId)))
      .returning({ id: oauthApps.id }),
  ]);
  if (deleted.length === 0) throw notFound("OAuth app");
  // The app is gone, so nothing else can name its client id: its codes and refresh tokens follow.
  await ctx.dir.batch([
    ctx.dir.delete(oauthCodes).where(eq(oauthCodes.clientId, clientId)),
    ctx.dir.delete(oauthRefreshTokens).where(eq(oauthRefreshTokens.clientId, clientId)),
  ]);
}
