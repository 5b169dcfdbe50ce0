import { projects, workspaceCollaborators, workspaces } from "../../db/schema";
import { MASKED_PASSWORD, projectBrandingDto } from "../portals/state";
import { domainVerificationDto } from "../portals/domains";

type Collaborator = { userId: string; role: string };

export function workspaceDto(row: typeof workspaces.$inferSelect, collaborators: Collaborator[]) {
  return {
    _id: row.id,
    name: row.name,
    isDefault: row.isDefault,
    isShared: row.isShared,
    organizationId: row.organizationId,
    ownerId: row.ownerId,
    collaborators,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    description: row.description,
  };
}

export function groupWorkspaceCollaborators(
  rows: (typeof workspaceCollaborators.$inferSelect)[],
): Map<string, Collaborator[]> {
  const out = new Map<string, Collaborator[]>();
  for (const r of rows) {
    const list = out.get(r.workspaceId) ?? [];
    list.push({ userId: r.userId, role: r.role });
    out.set(r.workspaceId, list);
  }
  return out;
}

/** `now` (the request's clock) decides whether an entry past its `expiresAt` answers as disabled (docs/api-guide.md › Automations, published portals, collaborative editing). */
export function projectDto(row: typeof projects.$inferSelect, now: number) {
  return {
    _id: row.id,
    userId: row.userId,
    workspaceId: row.workspaceId,
    name: row.name,
    originId: row.originId,
    reference: row.reference,
    description: row.description,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    icon: row.icon ?? null,
    emoji: row.emoji ?? null,
    published: row.published.map((p) => ({
      slug: p.slug,
      domain: p.domain,
      homepage: p.homepage,
      password: p.passwordHash ? MASKED_PASSWORD : "",
      disabled: p.disabled || (p.expiresAt != null && p.expiresAt <= now),
      ...(p.domain && { domainVerification: domainVerificationDto(p) }),
    })),
    // Every member present (all leaves strings), as the specification's Project shape has them.
    publishedBranding: projectBrandingDto(row.publishedBranding ?? null),
  };
}
