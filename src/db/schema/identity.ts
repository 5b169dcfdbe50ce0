import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

/** What a scoped token's `resources` resolve to when it is issued: each id by kind, and the workspaces they reach. */
export interface TokenResources {
  ids: string[];
  /** Workspaces of the listed organizations and the listed workspaces (an organization's later workspaces are not). */
  workspaceIds: string[];
  projectIds: string[];
}

export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    name: text("name").notNull(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [uniqueIndex("users_email_uq").on(t.email)],
);

export const accessTokens = sqliteTable(
  "access_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at"),
    lastUsedAt: integer("last_used_at"),
    /** Scoped tokens (docs/api-guide.md › Tokens and scopes): `<family>:read|write` and `admin`; null: full rights. */
    scopes: text("scopes", { mode: "json" }).$type<string[]>(),
    /** The organization, workspace and project ids the token is limited to, resolved when issued; null: none. */
    resources: text("resources", { mode: "json" }).$type<TokenResources>(),
  },
  (t) => [uniqueIndex("access_tokens_hash_uq").on(t.tokenHash), index("access_tokens_user_idx").on(t.userId)],
);

export const organizations = sqliteTable(
  "organizations",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    ownerId: text("owner_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    // The repair of the directory's index of memberships reads the organizations changed recently (docs/scaling.md).
    index("organizations_updated_idx").on(t.updatedAt, t.id),
  ],
);

export const organizationMembers = sqliteTable(
  "organization_members",
  {
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    /**
     * When the membership was made or its role last changed: the directory's index of memberships
     * (`userOrganizations`) is repaired from the rows changed recently (docs/scaling.md "The directory index of
     * memberships"). 0 for rows from before the column, which adoption's full pass covers.
     */
    updatedAt: integer("updated_at").notNull().default(0),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    index("organization_members_user_idx").on(t.userId),
    index("organization_members_updated_idx").on(t.updatedAt, t.organizationId, t.userId),
  ],
);

/**
 * The directory's index of memberships (docs/scaling.md "The directory index of memberships"): per user and
 * organization, what `GET /organization/all` answers — the organization's name, owner and times, and the member's
 * role — so the listing reads the directory only. Written after the shard write it mirrors (an upsert by key that
 * never replaces a newer version: `memberUpdatedAt` and `updatedAt` are the shard's), and repaired from the shards
 * by the per-minute tick (src/services/organizations/userOrganizations.ts). No foreign keys: derived data.
 */
export const userOrganizations = sqliteTable(
  "user_organizations",
  {
    userId: text("user_id").notNull(),
    organizationId: text("organization_id").notNull(),
    name: text("name").notNull(),
    ownerId: text("owner_id").notNull(),
    role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
    /** The organization's creation and last change, as in its shard. */
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    /** The membership's `updated_at` in its shard (the version this row mirrors). */
    memberUpdatedAt: integer("member_updated_at").notNull(),
    /** When this row was last written or checked against its shard (the repair checks the least recent first). */
    syncedAt: integer("synced_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.userId, t.organizationId] }),
    index("user_organizations_synced_idx").on(t.syncedAt, t.userId, t.organizationId),
  ],
);

export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull().default(""),
    data: text("data", { mode: "json" }).$type<Record<string, unknown>>(),
    readAt: integer("read_at"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("notifications_user_idx").on(t.userId, t.createdAt)],
);

/**
 * An organization membership or workspace collaboration offered to an email without an account (docs/api-guide.md,
 * "Organizations and workspaces"): applied when that email registers. `workspaceId` is "" for an organization
 * membership. One row per (organization, workspace, email); offering it again changes the role.
 */
export const memberInvitations = sqliteTable(
  "member_invitations",
  {
    id: text("id").primaryKey(),
    organizationId: text("organization_id")
      .notNull()
      .references(() => organizations.id),
    workspaceId: text("workspace_id").notNull().default(""),
    email: text("email").notNull(),
    role: text("role", { enum: ["owner", "admin", "member", "editor", "commenter", "viewer"] }).notNull(),
    invitedBy: text("invited_by")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    acceptedAt: integer("accepted_at"),
  },
  (t) => [
    uniqueIndex("member_invitations_target_idx").on(t.organizationId, t.workspaceId, t.email),
    index("member_invitations_email_idx").on(t.email, t.acceptedAt),
    index("member_invitations_org_idx").on(t.organizationId, t.acceptedAt),
  ],
);
