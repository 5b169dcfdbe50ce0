import { sql } from "drizzle-orm";
import { sqliteTable, text, integer, index, uniqueIndex } from "drizzle-orm/sqlite-core";
import { projects } from "./workspaces";

/**
 * Published portal entries (docs/api-guide.md › Automations, published portals, collaborative editing). The source of truth for slugs and domains: the database enforces that a
 * slug and a verified domain each name one portal across the service (a pending claim does not hold a domain, so
 * no one can squat a domain before its owner proves it; src/services/portals/domains.ts). `projects.published` is a JSON mirror of these rows,
 * rewritten in the same batch as every change, so project reads keep rendering `published` without a join.
 */
export const publishedEntries = sqliteTable(
  "published_entries",
  {
    slug: text("slug").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    /** Lower-case host name (with optional port); NULL when the entry has no domain of its own. */
    domain: text("domain"),
    /** The value the domain's TXT record must hold (`workspace-verify=<token>`); new whenever the domain changes. */
    domainToken: text("domain_token"),
    /** When ownership of `domain` was verified (NULL: pending; a pending domain is never served). */
    domainVerifiedAt: integer("domain_verified_at"),
    /** Document id shown at the portal's root ("" for the document list). */
    homepage: text("homepage").notNull().default(""),
    /** `pbkdf2-sha256$<iterations>$<salt>$<hash>`; NULL when the portal is public. */
    passwordHash: text("password_hash"),
    disabled: integer("disabled", { mode: "boolean" }).notNull().default(false),
    expiresAt: integer("expires_at"),
    allowIndexing: integer("allow_indexing", { mode: "boolean" }).notNull().default(false),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("published_entries_verified_domain_uq")
      .on(t.domain)
      .where(sql`domain_verified_at IS NOT NULL`),
    index("published_entries_project_idx").on(t.projectId, t.createdAt),
    // The portal-route repair's range over the last day (src/services/portals/routes.ts).
    index("published_entries_updated_idx").on(t.updatedAt),
  ],
);
