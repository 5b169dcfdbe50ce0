-- Full-text search (docs/api-guide.md › Search). Everything here is derived data: `npm run search:reindex`
-- rebuilds it from documents, content objects, DOCX blobs and cells, so backups copy the real tables only.
-- drizzle-kit cannot express virtual tables or triggers: this is a custom migration (drizzle-kit generate --custom),
-- and these tables stay out of src/db/schema on purpose.
--
-- search_entries holds one row per searchable record (a document or folder, an uploaded file, a table row):
-- its title (document name / row identifier) and body (rich-text content / DOCX text / other text cells), with
-- what access needs for every match (workspace, project, live = not deleted, nor its table): a search reads
-- nothing else until it has its page.
-- search_fts is an external-content FTS5 index over it, kept in step by the triggers below.
--
-- `scope` (generated from the columns above) puts who may read an entry into the index itself, as words no user
-- query can reach (queries are confined to title and body): `k<kind>`, `w<workspace>`, `p<project>`, and `r<project>`
-- for a row (readable through a grant on a document of its project) or `d<id>` for a document or file (readable
-- through a grant on it or, expanded at query time, on a folder above it). A deleted entry has no scope words at all.
-- A search ANDs its words with the caller's scope words, so FTS5 intersects posting lists and never visits an entry
-- the caller cannot read; the access rules in SQL stay as the final guard on the page.
CREATE TABLE `search_entries` (
	`id` integer PRIMARY KEY,
	`record_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`workspace_id` text,
	`project_id` text,
	`live` integer DEFAULT 0 NOT NULL,
	`scope` text GENERATED ALWAYS AS (CASE WHEN `live` = 1 THEN
		'k' || `kind` || ' w' || COALESCE(`workspace_id`, '') || ' p' || COALESCE(`project_id`, '') ||
		CASE WHEN `kind` = 'row' THEN ' r' || COALESCE(`project_id`, '') ELSE ' d' || `record_id` END
	ELSE '' END) VIRTUAL
);--> statement-breakpoint
CREATE UNIQUE INDEX `search_entries_record_uq` ON `search_entries` (`record_id`);--> statement-breakpoint
CREATE VIRTUAL TABLE `search_fts` USING fts5(title, body, scope, content='search_entries', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3');--> statement-breakpoint
CREATE TRIGGER `search_entries_ai` AFTER INSERT ON `search_entries` BEGIN
  INSERT INTO search_fts (rowid, title, body, scope) VALUES (new.id, new.title, new.body, new.scope);
END;--> statement-breakpoint
CREATE TRIGGER `search_entries_ad` AFTER DELETE ON `search_entries` BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope) VALUES ('delete', old.id, old.title, old.body, old.scope);
END;--> statement-breakpoint
CREATE TRIGGER `search_entries_au` AFTER UPDATE OF title, body, kind, record_id, workspace_id, project_id, live ON `search_entries`
WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.scope IS NOT new.scope BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope) VALUES ('delete', old.id, old.title, old.body, old.scope);
  INSERT INTO search_fts (rowid, title, body, scope) VALUES (new.id, new.title, new.body, new.scope);
END;--> statement-breakpoint
-- Documents: the name is the title, in the same statement as the document's own write.
CREATE TRIGGER `search_documents_ai` AFTER INSERT ON `documents` BEGIN
  INSERT INTO search_entries (record_id, kind, title, workspace_id, project_id, live)
  VALUES (new.id, CASE WHEN new.type = 'EXTERNAL' THEN 'file' ELSE 'document' END, new.name, new.workspace_id, new.project_id, new.is_deleted = 0)
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, kind = excluded.kind, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;--> statement-breakpoint
CREATE TRIGGER `search_documents_au` AFTER UPDATE OF name, is_deleted, workspace_id, project_id ON `documents` BEGIN
  UPDATE search_entries SET title = new.name, workspace_id = new.workspace_id, project_id = new.project_id, live = new.is_deleted = 0
  WHERE record_id = new.id;
END;--> statement-breakpoint
-- Deleting or restoring a row or a table changes whether its rows are found.
CREATE TRIGGER `search_rows_au` AFTER UPDATE OF is_deleted ON `rows` BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = new.table_id AND t.is_deleted = 1)
  WHERE record_id = new.id;
END;--> statement-breakpoint
CREATE TRIGGER `search_tables_au` AFTER UPDATE OF is_deleted ON `tables` BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0 AND EXISTS (SELECT 1 FROM rows r WHERE r.id = search_entries.record_id AND r.is_deleted = 0)
  WHERE record_id IN (SELECT id FROM rows WHERE table_id = new.id);
END;--> statement-breakpoint
-- Rows: the identifier cell is the title, the other live text, URL and email cells the body, recomputed whenever one
-- of those cells is written. Cells of other columns (numbers, selects, formulas) never reach the index, so their
-- writes skip the trigger: a whole-table formula apply costs no index work, and its statements' `changes` count
-- only the cells written.
CREATE TRIGGER `search_cells_ai` AFTER INSERT ON `cells`
  WHEN new.is_identifier = 1 OR (SELECT json_extract(co.data, '$.type') FROM columns co WHERE co.id = new.column_id) IN ('text', 'url', 'email')
BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
  SELECT new.row_id, 'row',
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c
      WHERE c.row_id = new.row_id AND c.is_identifier = 1 AND c.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 0 AND c.is_deleted = 0 AND json_type(c.data) = 'text'
        AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
    new.workspace_id, r.project_id, r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
  FROM rows r WHERE r.id = new.row_id
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;--> statement-breakpoint
CREATE TRIGGER `search_cells_au` AFTER UPDATE OF data, is_deleted, is_identifier ON `cells`
  WHEN new.is_identifier = 1 OR (SELECT json_extract(co.data, '$.type') FROM columns co WHERE co.id = new.column_id) IN ('text', 'url', 'email')
BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
  SELECT new.row_id, 'row',
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c
      WHERE c.row_id = new.row_id AND c.is_identifier = 1 AND c.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 0 AND c.is_deleted = 0 AND json_type(c.data) = 'text'
        AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
    new.workspace_id, r.project_id, r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
  FROM rows r WHERE r.id = new.row_id
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;--> statement-breakpoint
-- Existing records: names and cells now; document bodies and DOCX text come from R2 (npm run search:reindex).
INSERT INTO search_entries (record_id, kind, title, workspace_id, project_id, live)
SELECT id, CASE WHEN type = 'EXTERNAL' THEN 'file' ELSE 'document' END, name, workspace_id, project_id, is_deleted = 0 FROM documents WHERE true
ON CONFLICT (record_id) DO NOTHING;--> statement-breakpoint
INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
SELECT r.id, 'row',
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c
    WHERE c.row_id = r.id AND c.is_identifier = 1 AND c.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
  COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
    WHERE c.row_id = r.id AND c.is_identifier = 0 AND c.is_deleted = 0 AND json_type(c.data) = 'text'
      AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
  r.workspace_id, r.project_id, r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
FROM rows r WHERE EXISTS (SELECT 1 FROM cells c WHERE c.row_id = r.id)
ON CONFLICT (record_id) DO NOTHING;
