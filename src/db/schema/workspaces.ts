import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { organizations, users } from "./identity";

export type Icon = { name: string; color: string };
export type Emoji = { unified: string; emojiStyle: string };

export const workspaces = sqliteTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
    isShared: integer("is_shared", { mode: "boolean" }).notNull().default(false),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("workspaces_org_idx").on(t.organizationId)],
);

export const workspaceCollaborators = sqliteTable(
  "workspace_collaborators",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ["owner", "admin", "editor", "commenter", "viewer"] }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.userId] }), index("workspace_collaborators_user_idx").on(t.userId)],
);

/** Mirror of a published_entries row (src/db/schema/portals.ts), kept for the project DTO. */
export type PublishedEntry = {
  slug: string;
  domain: string;
  homepage: string;
  passwordHash: string | null;
  disabled: boolean;
  expiresAt?: number | null;
  allowIndexing?: boolean;
  /** TXT token of `domain` (src/services/portals/domains.ts); absent in mirrors written before domain checks. */
  domainToken?: string | null;
  /** When `domain` was verified (null: pending). */
  domainVerifiedAt?: number | null;
};
export type PublishedBranding = {
  company?: { name?: string; logo?: string; url?: string };
  callToAction?: { enabled?: boolean; icon?: { name?: string; color?: string }; text?: string; url?: string };
  socials?: { platform: string; handle: string }[];
};

export const projects = sqliteTable(
  "projects",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    originId: text("origin_id").notNull().default(""),
    reference: text("reference").notNull().default(""),
    description: text("description").notNull().default(""),
    icon: text("icon", { mode: "json" }).$type<Icon | null>(),
    emoji: text("emoji", { mode: "json" }).$type<Emoji | null>(),
    published: text("published", { mode: "json" }).$type<PublishedEntry[]>().notNull().default([]),
    publishedBranding: text("published_branding", { mode: "json" }).$type<PublishedBranding | null>(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("projects_workspace_idx").on(t.workspaceId, t.createdAt)],
);
