import { sqliteTable, text, integer, index, uniqueIndex, primaryKey } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull(),
  name: text("name").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("users_email_uq").on(t.email)]);

export const accessTokens = sqliteTable("access_tokens", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at"),
  lastUsedAt: integer("last_used_at"),
}, (t) => [uniqueIndex("access_tokens_hash_uq").on(t.tokenHash), index("access_tokens_user_idx").on(t.userId)]);

export const organizations = sqliteTable("organizations", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  ownerId: text("owner_id").notNull().references(() => users.id),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const organizationMembers = sqliteTable("organization_members", {
  organizationId: text("organization_id").notNull().references(() => organizations.id),
  userId: text("user_id").notNull().references(() => users.id),
  role: text("role", { enum: ["owner", "admin", "member"] }).notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [primaryKey({ columns: [t.organizationId, t.userId] }), index("organization_members_user_idx").on(t.userId)]);

export const notifications = sqliteTable("notifications", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id),
  kind: text("kind").notNull(),
  title: text("title").notNull(),
  body: text("body").notNull().default(""),
  data: text("data", { mode: "json" }).$type<Record<string, unknown>>(),
  readAt: integer("read_at"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("notifications_user_idx").on(t.userId, t.createdAt)]);

/**
 * An organization membership or workspace collaboration offered to an email without an account (docs/api-guide.md,
 * "Organizations and workspaces"): applied when that email registers. `workspaceId` is "" for an organization
 * membership. One row per (organization, workspace, email); offering it again changes the role.
 */
export const memberInvitations = sqliteTable("member_invitations", {
  id: text("id").primaryKey(),
  organizationId: text("organization_id").notNull().references(() => organizations.id),
  workspaceId: text("workspace_id").notNull().default(""),
  email: text("email").notNull(),
  role: text("role", { enum: ["owner", "admin", "member", "editor", "viewer"] }).notNull(),
  invitedBy: text("invited_by").notNull().references(() => users.id),
  createdAt: integer("created_at").notNull(),
  acceptedAt: integer("accepted_at"),
}, (t) => [
  uniqueIndex("member_invitations_target_idx").on(t.organizationId, t.workspaceId, t.email),
  index("member_invitations_email_idx").on(t.email, t.acceptedAt),
  index("member_invitations_org_idx").on(t.organizationId, t.acceptedAt),
]);
