import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { projects, workspaces, type Emoji, type Icon } from "./workspaces";

export type DocumentType = "FOLDER" | "DOCUMENT" | "EXTERNAL";
export type ExternalInfo = { type: "DOCX" | "PDF"; resourcePath: string; resourceId: string; seededAt?: number };
export type PublishedSettings = {
  publishedById: string;
  publishedAt: number;
  styling: Record<string, unknown>;
  domainSlug: string;
};

export const documents = sqliteTable(
  "documents",
  {
    id: text("id").primaryKey(),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    parentId: text("parent_id"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    type: text("type").$type<DocumentType>().notNull(),
    description: text("description").notNull().default(""),
    reference: text("reference").notNull().default(""),
    order: integer("order").notNull().default(0),
    isPublished: integer("is_published", { mode: "boolean" }).notNull().default(false),
    publishedSettings: text("published_settings", { mode: "json" }).$type<PublishedSettings | null>(),
    external: text("external", { mode: "json" }).$type<ExternalInfo | null>(),
    icon: text("icon", { mode: "json" }).$type<Icon | null>(),
    emoji: text("emoji", { mode: "json" }).$type<Emoji | null>(),
    isDeleted: integer("is_deleted", { mode: "boolean" }).notNull().default(false),
    /** When the subtree delete that removed this document ran; restore brings back exactly that operation. */
    deletedAt: integer("deleted_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    index("documents_project_idx").on(t.projectId, t.parentId, t.order),
    index("documents_parent_idx").on(t.parentId),
  ],
);

export const documentCollaborators = sqliteTable(
  "document_collaborators",
  {
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    role: text("role", { enum: ["owner", "editor", "commenter", "viewer"] }).notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.documentId, t.userId] }), index("document_collaborators_user_idx").on(t.userId)],
);

export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    role: text("role", { enum: ["owner", "editor", "commenter", "viewer"] }).notNull(),
    invitedBy: text("invited_by")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    acceptedAt: integer("accepted_at"),
    /** The document's organization, so its pending invitations are counted by index (0006 fills older rows). */
    organizationId: text("organization_id"),
  },
  (t) => [
    index("invitations_email_idx").on(t.email, t.acceptedAt),
    index("invitations_org_idx").on(t.organizationId, t.acceptedAt),
  ],
);
