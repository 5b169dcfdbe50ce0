import { sqliteTable, text, integer, index, primaryKey } from "drizzle-orm/sqlite-core";
import { users } from "./identity";
import { workspaces } from "./workspaces";
import { documents } from "./documents";

/**
 * The current rich-text content of a document: blocks live in R2 under `r2Key` (a fresh key per write, so a
 * losing concurrent writer never touches the winner's object); D1 holds the version that writers bump
 * conditionally. A document without a row has never been written: version 0, blocks `[]`.
 */
export const documentContents = sqliteTable("document_contents", {
  documentId: text("document_id")
    .primaryKey()
    .references(() => documents.id),
  version: integer("version").notNull(),
  size: integer("size").notNull(),
  r2Key: text("r2_key").notNull(),
  updatedBy: text("updated_by")
    .notNull()
    .references(() => users.id),
  updatedAt: integer("updated_at").notNull(),
});

/** Export settings of a document (E5); empty strings when unset. */
export const documentSettings = sqliteTable("document_settings", {
  documentId: text("document_id")
    .primaryKey()
    .references(() => documents.id),
  listTemplateId: text("list_template_id").notNull().default(""),
  importedTermId: text("imported_term_id").notNull().default(""),
  updatedAt: integer("updated_at").notNull(),
});

/** Every stored version of an EXTERNAL DOCX document; objects are immutable and never deleted. */
export const docxVersions = sqliteTable(
  "docx_versions",
  {
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    version: integer("version").notNull(),
    r2Key: text("r2_key").notNull(),
    size: integer("size").notNull(),
    sha256: text("sha256").notNull(),
    etag: text("etag").notNull(),
    createdBy: text("created_by")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.documentId, t.version] })],
);

export const audioMedia = sqliteTable(
  "audio_media",
  {
    id: text("id").primaryKey(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id),
    fileName: text("file_name").notNull(),
    mimeType: text("mime_type").notNull(),
    size: integer("size").notNull(),
    r2Key: text("r2_key").notNull(),
    etag: text("etag").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("audio_media_document_idx").on(t.documentId)],
);

/**
 * A frozen state of a document. `contentKey` points at the content object that was current when the snapshot
 * was taken (shared with `document_contents` until the next write; a content object is deleted only when no
 * snapshot and no current content points at it). `docxVersion`/`docxKey` name the newest DOCX version then.
 */
export const snapshots = sqliteTable(
  "snapshots",
  {
    id: text("id").primaryKey(),
    documentId: text("document_id")
      .notNull()
      .references(() => documents.id),
    name: text("name").notNull(),
    description: text("description").notNull().default(""),
    contentVersion: integer("content_version").notNull(),
    contentKey: text("content_key"),
    contentSize: integer("content_size").notNull().default(0),
    docxVersion: integer("docx_version"),
    docxKey: text("docx_key"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("snapshots_document_idx").on(t.documentId, t.id), index("snapshots_content_key_idx").on(t.contentKey)],
);
