/**
 * The audit entries of published portals (docs/api-guide.md › Changes, history and audit): `portal.published`,
 * `portal.updated` (the settings changed, a password shown as set or not), `portal.unpublished`,
 * `portal.branding_changed`, and `portal.login_failed`, each about the project, for the batch of its write.
 */
import { sql, type SQL } from "drizzle-orm";
import type { CellChanges } from "../../db/schema/changes";
import type { publishedEntries } from "../../db/schema";
import { auditEntryQuery, changedFields, recordAuditEvent } from "../audit/log";
import type { ServiceContext } from "../context";

type Entry = typeof publishedEntries.$inferSelect;
const entryRow = (projectId: string, slug: string) =>
  sql`SELECT 1 FROM published_entries e WHERE e.project_id = ${projectId} AND e.slug = ${slug}`;
const masked = (hash: string | null | undefined) => (hash ? "********" : null);

/** After the entry's insert: recorded when the batch made it. */
export function publishedAudit(ctx: ServiceContext, row: Entry) {
  return auditEntryQuery(ctx, {
    kind: "portal.published",
    recordId: row.projectId,
    projectId: row.projectId,
    changes: changedFields(null, {
      slug: row.slug,
      domain: row.domain,
      homepage: row.homepage || null,
      password: masked(row.passwordHash),
      expiresAt: row.expiresAt,
      allowIndexing: row.allowIndexing,
    }),
    exists: sql`EXISTS (${entryRow(row.projectId, row.slug)} AND e.created_at = ${ctx.now})`,
  });
}

/**
 * The settings a PATCH changes, as read before it (`current`) and as sent (`patch`, a password as its hash: set or
 * null); null when nothing changes (no entry then).
 */
export function entryChanges(
  current: Entry,
  patch: Partial<Pick<Entry, "domain" | "homepage" | "disabled" | "expiresAt" | "allowIndexing">>,
  passwordHash: string | null | undefined,
): CellChanges | null {
  const changes = changedFields(current, patch) ?? {};
  // A new password is a change even when one was set before: both read as set.
  if (passwordHash !== undefined && (passwordHash !== null || current.passwordHash !== null))
    changes.password = { before: masked(current.passwordHash), after: masked(passwordHash) };
  return Object.keys(changes).length ? changes : null;
}

/** `portal.updated` with the changes entryChanges found; nothing when there are none. */
export function updatedAudit(ctx: ServiceContext, projectId: string, slug: string, changes: CellChanges | null) {
  if (!changes) return [];
  return [
    auditEntryQuery(ctx, {
      kind: "portal.updated",
      recordId: projectId,
      projectId,
      changes: { slug: { before: slug, after: slug }, ...changes },
      exists: sql`EXISTS (${entryRow(projectId, slug)})`,
    }),
  ];
}

/** Before the entry's delete: recorded when there is one to delete. */
export function unpublishedAudit(ctx: ServiceContext, projectId: string, slug: string) {
  return auditEntryQuery(ctx, {
    kind: "portal.unpublished",
    recordId: projectId,
    projectId,
    changes: { slug: { before: slug, after: null } },
    exists: sql`EXISTS (${entryRow(projectId, slug)})`,
  });
}

/** Before the project's update: recorded when the stored branding differs from the new one. */
export function brandingAudit(ctx: ServiceContext, projectId: string, branding: unknown) {
  const stored = sql`(SELECT published_branding FROM projects WHERE id = ${projectId})`;
  const next = JSON.stringify(branding);
  return auditEntryQuery(ctx, {
    kind: "portal.branding_changed",
    recordId: projectId,
    projectId,
    changesSql: sql`json_object('branding', json_object('before', json(${stored}), 'after', json(${next})))`,
    exists: sql`json(${stored}) IS NOT json(${next})`,
  });
}

/** A wrong portal password (`portal.login_failed`), recorded after the response, with the slug tried. */
export function loginFailedAudit(ctx: ServiceContext, projectId: string, slug: string) {
  recordAuditEvent(ctx, {
    kind: "portal.login_failed",
    recordId: projectId,
    projectId,
    changes: { slug: { before: null, after: slug } },
  });
}

/**
 * `portal.document_published` / `portal.document_unpublished` (a document's own publication), for the batch of the
 * document's update and guarded by its WHERE: recorded when the update lands on a document not already in that state.
 */
export function documentPublishAudit(
  ctx: ServiceContext,
  input: { doc: { id: string; workspaceId: string; projectId: string }; published: boolean; where: SQL },
) {
  const { doc, published } = input;
  return auditEntryQuery(ctx, {
    kind: published ? "portal.document_published" : "portal.document_unpublished",
    recordId: doc.id,
    workspaceId: doc.workspaceId,
    projectId: doc.projectId,
    changes: { isPublished: { before: !published, after: published } },
    exists: sql`EXISTS (SELECT 1 FROM documents WHERE ${input.where} AND documents.is_published = ${published ? 0 : 1})`,
  });
}
