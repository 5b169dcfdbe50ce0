/**
 * The portals area's statement builders (docs/architecture.md, "Services and statements"): they return the query or
 * the SQL without running it. ./entryReads.ts reads the entry, its homepage and the domain's holders in one batch;
 * ./state.ts reads a portal's whole state in one query; ./entries.ts rebuilds and guards the project's `published`
 * mirror (./mirror.ts predicts it in code).
 */
import { and, eq, isNotNull, ne, sql, type SQL } from "drizzle-orm";
import { documents, publishedEntries } from "../../db/schema";
import type { Db } from "../../env";
import { servedHere } from "../context";
import type { PortalSelector } from "./state";

/** Batchable: the homepage document when it is a live document of the project (no row otherwise). */
export function homepageStatement(db: Db, projectId: string, homepage: string | undefined) {
  return db
    .select({ id: documents.id })
    .from(documents)
    .where(and(eq(documents.id, homepage ?? ""), eq(documents.projectId, projectId), eq(documents.isDeleted, false)));
}

/** Batchable: the named entry of the project (no row otherwise). */
export function entryStatement(db: Db, projectId: string, slug: string) {
  // The whole entry: a PATCH's audit entry compares its settings before and after.
  return db
    .select()
    .from(publishedEntries)
    .where(and(eq(publishedEntries.slug, slug), eq(publishedEntries.projectId, projectId)));
}

export const ENTRY_DOMAIN = Symbol("the entry's own domain");

/**
 * Batchable: another entry that holds `domain` verified (no row otherwise). `domain` "entry's own" compares with the
 * named entry's current domain (what verify-domain is about to mark verified).
 */
export function verifiedDomainStatement(db: Db, domain: string | undefined | typeof ENTRY_DOMAIN, slug: string | null) {
  const target =
    domain === ENTRY_DOMAIN
      ? sql`(SELECT domain FROM published_entries WHERE slug = ${slug ?? ""})`
      : domain || "\u0000";
  return db
    .select({ slug: publishedEntries.slug })
    .from(publishedEntries)
    .where(
      and(
        sql`${publishedEntries.domain} = ${target}`,
        isNotNull(publishedEntries.domainVerifiedAt),
        ne(publishedEntries.slug, slug ?? ""),
      ),
    );
}

function where(sel: PortalSelector): SQL {
  // A slug or a domain is looked for in every shard database: only the copy of a shard that database serves counts.
  if ("slug" in sel) return sql`e.slug = ${sel.slug} AND ${servedHere("e.project_id")}`;
  // Only a verified domain is served (./domains.ts).
  if ("domain" in sel)
    return sql`e.domain = ${sel.domain} AND e.domain_verified_at IS NOT NULL AND ${servedHere("e.project_id")}`;
  return sql`e.project_id = ${sel.projectId}`;
}

/** A portal's entries, project and published documents (./state.ts's `Raw` rows), for the selector. */
export function portalsQuery(sel: PortalSelector): SQL {
  return sql`
    SELECT e.slug, e.project_id AS projectId, CASE WHEN e.domain_verified_at IS NOT NULL THEN e.domain END AS domain, e.homepage, e.password_hash AS passwordHash, e.disabled,
      e.expires_at AS expiresAt, e.allow_indexing AS allowIndexing, e.updated_at AS entryUpdatedAt,
      p.name, p.description, p.icon, p.emoji, p.published_branding AS branding, p.updated_at AS projectUpdatedAt,
      (SELECT json_group_array(json(x)) FROM (
        SELECT json_array(d.id, d.parent_id, d.name, d.type, d."order", json(coalesce(d.icon, 'null')), json(coalesce(d.emoji, 'null')),
          d.description, d.updated_at, coalesce(c.version, 0), c.r2_key) AS x
        FROM documents d LEFT JOIN document_contents c ON c.document_id = d.id
        WHERE d.project_id = e.project_id AND d.is_published = 1 AND d.is_deleted = 0
        ORDER BY d."order", d.created_at, d.id)) AS docs
    FROM published_entries e JOIN projects p ON p.id = e.project_id
    WHERE ${where(sel)}
    ORDER BY e.created_at, e.slug`;
}

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
