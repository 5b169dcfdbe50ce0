/**
 * The `published` JSON mirror of a project (src/db/schema/portals.ts): rebuilt in SQL from the project's entries in
 * every entry write's batch, and predicted here in code for a publish, whose answer (the project as the write leaves
 * it) is kept with the write under its Idempotency-Key (docs/api-guide.md › HTTP semantics). The prediction holds
 * because the write is guarded by the project row read for it (`projectFingerprint`): every change to the project or
 * its entries rewrites that row, and a changed row makes the guarded write and its kept answer do nothing at all.
 */
import { sql } from "drizzle-orm";
import type { PublishedEntry } from "../../db/schema";
import { publishedEntries } from "../../db/schema";

/** The `published` mirror of a project, rebuilt from its entries (oldest first). */
export function mirror(projectId: string) {
  return sql`(SELECT json_group_array(json(x)) FROM (
    SELECT json_object('slug', slug, 'domain', coalesce(domain, ''), 'homepage', homepage, 'passwordHash', password_hash,
      'disabled', json(CASE WHEN disabled THEN 'true' ELSE 'false' END), 'expiresAt', expires_at,
      'allowIndexing', json(CASE WHEN allow_indexing THEN 'true' ELSE 'false' END),
      'domainToken', domain_token, 'domainVerifiedAt', domain_verified_at) AS x
    FROM published_entries WHERE project_id = ${projectId} ORDER BY created_at, slug))`;
}

/**
 * Every column of the project row in one text, read with the entries a publish predicts its answer from; the write
 * is guarded by it. Used as an expression on the `projects` row (a select from, or an update of, that row).
 */
export const projectFingerprint = sql<string>`json_array("projects"."name", "projects"."description", "projects"."icon", "projects"."emoji",
  "projects"."published", "projects"."published_branding", "projects"."reference", "projects"."origin_id", "projects"."workspace_id",
  "projects"."user_id", "projects"."created_at", "projects"."updated_at")`;

/** The same fingerprint for one project, as a scalar subquery (for a statement not on the `projects` row). */
export const fingerprintOf = (projectId: string) =>
  sql`(SELECT ${projectFingerprint} FROM "projects" WHERE "projects"."id" = ${projectId})`;

type EntryRow = typeof publishedEntries.$inferSelect;

/** An entry as the mirror holds it (what `mirror` builds from its row). */
function mirrorEntry(e: EntryRow): PublishedEntry {
  return {
    slug: e.slug,
    domain: e.domain ?? "",
    homepage: e.homepage,
    passwordHash: e.passwordHash,
    disabled: e.disabled,
    expiresAt: e.expiresAt,
    allowIndexing: e.allowIndexing,
    domainToken: e.domainToken,
    domainVerifiedAt: e.domainVerifiedAt,
  };
}

/** The mirror the project will hold once `added` is written beside its `entries` (the SQL's order: created_at, slug). */
export function predictedMirror(entries: readonly EntryRow[], added: EntryRow): PublishedEntry[] {
  const before = (a: EntryRow, b: EntryRow) =>
    a.createdAt !== b.createdAt ? a.createdAt - b.createdAt : a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0;
  return [...entries, added].sort(before).map(mirrorEntry);
}
