/**
 * Reading published portals through the API (E13, E14 and the login of docs/api-guide.md › Automations, published portals, collaborative editing). Any valid bearer token may
 * read; what decides is the entry: none is 404, none active (disabled or past `expiresAt`) is 403, and a
 * password-protected one needs a valid reader token (401 otherwise).
 */
import { loginFailedAudit } from "./audit";
import type { ServiceContext } from "../context";
import { ApiError, forbidden, notFound } from "../../errors";
import { brandingDto, isActive, loadPortals, projectDataOf, type PortalState } from "./state";
import { verifyPassword } from "./password";
import { portalTokenSlug, signPortalToken, verifyPortalToken } from "./token";

/** How the request names the portal: the project id, or `home` with the Host header and a `slug` fallback. */
export interface PortalAddress {
  publishedId: string;
  host: string | null;
  slug?: string;
}

const unauthorized = (message: string) => new ApiError("UnauthorizedError", message);

function requireSecret(secret: string | undefined): string {
  if (!secret)
    throw new ApiError("ServiceUnavailableError", "Signing is not configured on this deployment (SIGNING_SECRET)");
  return secret;
}

/** The entries an address names (one for `home`, one per entry of the project otherwise, narrowed by `slug`). */
async function resolveEntries(ctx: ServiceContext, addr: PortalAddress): Promise<PortalState[]> {
  if (addr.publishedId === "home") {
    if (addr.host) {
      const byHost = await loadPortals(ctx, { domain: addr.host.toLowerCase() });
      if (byHost.length) return byHost;
    }
    return addr.slug ? loadPortals(ctx, { slug: addr.slug.toLowerCase() }) : [];
  }
  const all = await loadPortals(ctx, { projectId: addr.publishedId });
  return addr.slug ? all.filter((p) => p.slug === addr.slug!.toLowerCase()) : all;
}

export async function getPublishedBranding(ctx: ServiceContext, addr: PortalAddress) {
  const [first] = await resolveEntries(ctx, addr);
  if (!first) throw notFound("Published project");
  return { branding: brandingDto(first.project.branding), version: first.version };
}

function activeOrThrow(entries: PortalState[], now: number): PortalState[] {
  if (entries.length === 0) throw notFound("Published project");
  const active = entries.filter((p) => isActive(p, now));
  if (active.length === 0) throw forbidden("This portal is disabled");
  return active;
}

/** E14: the project data of the first active entry the caller may open. */
export async function getPublishedProject(
  ctx: ServiceContext,
  { address: addr, readerToken }: { address: PortalAddress; readerToken: string | null },
) {
  const active = activeOrThrow(await resolveEntries(ctx, addr), ctx.now);
  let entry = active.find((p) => p.passwordHash === null);
  if (!entry && readerToken) {
    const slug = portalTokenSlug(readerToken);
    const candidate = active.find((p) => p.slug === slug);
    if (
      candidate &&
      (await verifyPortalToken(
        requireSecret(ctx.env.SIGNING_SECRET),
        readerToken,
        candidate.slug,
        candidate.passwordHash!,
        ctx.now,
      ))
    )
      entry = candidate;
  }
  if (!entry) throw unauthorized("This portal is password-protected: send a valid user-published-token header");
  return { projectId: entry.projectId, projectData: projectDataOf(entry), version: entry.version, slug: entry.slug };
}

/**
 * A reader token for the first active entry whose password matches (a public entry needs none). Each entry tried
 * first spends a login attempt of that entry (`spendAttempt` throws the 429), so the limit is per entry however the
 * request named it.
 */
export async function loginPublished(
  ctx: ServiceContext,
  {
    address: addr,
    password,
    spendAttempt,
  }: { address: PortalAddress; password: string; spendAttempt: (entrySlug: string) => Promise<void> },
) {
  const active = activeOrThrow(await resolveEntries(ctx, addr), ctx.now);
  const secret = requireSecret(ctx.env.SIGNING_SECRET);
  for (const p of active) {
    if (p.passwordHash !== null) await spendAttempt(p.slug);
    if (p.passwordHash === null || (await verifyPassword(password, p.passwordHash))) {
      return signPortalToken(secret, p.slug, p.passwordHash ?? "", ctx.now);
    }
  }
  for (const p of active) loginFailedAudit(ctx, p.projectId, p.slug);
  throw unauthorized("The password is not correct");
}

/** Whether `token` opens `portal` (a public portal needs none). */
export async function readerMayOpen(
  ctx: ServiceContext,
  { portal, token }: { portal: PortalState; token: string | null },
): Promise<boolean> {
  if (portal.passwordHash === null) return true;
  if (!token || !ctx.env.SIGNING_SECRET) return false;
  return verifyPortalToken(ctx.env.SIGNING_SECRET, token, portal.slug, portal.passwordHash, ctx.now);
}

/** Site login: a token for this one entry when the password matches, else null. */
export async function loginPortal(
  ctx: ServiceContext,
  { portal, password }: { portal: PortalState; password: string },
): Promise<{ token: string; expiresAt: number } | null> {
  const secret = requireSecret(ctx.env.SIGNING_SECRET);
  if (portal.passwordHash !== null && !(await verifyPassword(password, portal.passwordHash))) {
    loginFailedAudit(ctx, portal.projectId, portal.slug);
    return null;
  }
  return signPortalToken(secret, portal.slug, portal.passwordHash ?? "", ctx.now);
}
