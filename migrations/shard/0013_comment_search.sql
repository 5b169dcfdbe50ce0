-- Comments are found by search (docs/api-guide.md › Search, › Comments), under their target's read rules:
-- 1. A comment's entry (kind 'comment', title '', body = its Markdown) names its target: `document_id` or `row_id`.
--    Its scope words are those of its target's read rule — `d<documentId>` for a comment on a document, `r<projectId>`
--    for one on a row — so the index confines a search to the comments the caller could read, as for documents and rows.
--    The generated `indexed_scope` is what the full-text index holds (the other kinds keep `scope`).
-- 2. The entry is live while the comment is not a tombstone and its target is live (a deleted document, row or table
--    takes its comments out of the index; a restore puts them back). Never on a portal: portal search asks for
--    `kdocument`.
-- 3. The view and the index's triggers read `indexed_scope`; for every existing entry it equals `scope`, so the
--    index needs no rebuild.
ALTER TABLE `search_entries` ADD `document_id` text;
--> statement-breakpoint
ALTER TABLE `search_entries` ADD `row_id` text;
--> statement-breakpoint
ALTER TABLE `search_entries` ADD `indexed_scope` text GENERATED ALWAYS AS (CASE WHEN `kind` = 'comment' THEN
  CASE WHEN `live` = 1 THEN 'kcomment w' || COALESCE(`workspace_id`, '') || ' p' || COALESCE(`project_id`, '') ||
    CASE WHEN `document_id` IS NOT NULL THEN ' d' || `document_id` ELSE ' r' || COALESCE(`project_id`, '') END
  ELSE '' END
ELSE `scope` END) VIRTUAL;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_au`;
--> statement-breakpoint
DROP VIEW IF EXISTS `search_indexed`;
--> statement-breakpoint
CREATE VIEW `search_indexed` AS SELECT `id`,
  CASE WHEN `live` = 1 THEN `title` ELSE '' END AS `title`,
  CASE WHEN `live` = 1 THEN `body` ELSE '' END AS `body`,
  `indexed_scope` AS `scope` FROM `search_entries`;
--> statement-breakpoint
CREATE TRIGGER `search_entries_ai` AFTER INSERT ON `search_entries` BEGIN
  INSERT INTO search_fts (rowid, title, body, scope)
  VALUES (new.id, CASE WHEN new.live = 1 THEN new.title ELSE '' END, CASE WHEN new.live = 1 THEN new.body ELSE '' END, new.indexed_scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_ad` AFTER DELETE ON `search_entries` BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope)
  VALUES ('delete', old.id, CASE WHEN old.live = 1 THEN old.title ELSE '' END, CASE WHEN old.live = 1 THEN old.body ELSE '' END, old.indexed_scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_au` AFTER UPDATE OF title, body, kind, record_id, workspace_id, project_id, live, document_id, row_id ON `search_entries`
WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.indexed_scope IS NOT new.indexed_scope BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope)
  VALUES ('delete', old.id, CASE WHEN old.live = 1 THEN old.title ELSE '' END, CASE WHEN old.live = 1 THEN old.body ELSE '' END, old.indexed_scope);
  INSERT INTO search_fts (rowid, title, body, scope)
  VALUES (new.id, CASE WHEN new.live = 1 THEN new.title ELSE '' END, CASE WHEN new.live = 1 THEN new.body ELSE '' END, new.indexed_scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_comments_ai` AFTER INSERT ON `comments` BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, document_id, row_id, live)
  VALUES (new.id, 'comment', '', new.body, new.workspace_id, new.project_id, new.document_id, new.row_id,
    new.is_deleted = 0 AND CASE WHEN new.document_id IS NOT NULL
      THEN EXISTS (SELECT 1 FROM documents d WHERE d.id = new.document_id AND d.is_deleted = 0)
      ELSE EXISTS (SELECT 1 FROM rows r JOIN tables t ON t.id = r.table_id WHERE r.id = new.row_id AND r.is_deleted = 0 AND t.is_deleted = 0) END)
  ON CONFLICT (record_id) DO UPDATE SET body = excluded.body, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, document_id = excluded.document_id, row_id = excluded.row_id, live = excluded.live;
END;
--> statement-breakpoint
CREATE TRIGGER `search_comments_au` AFTER UPDATE OF body, is_deleted ON `comments`
  WHEN old.body IS NOT new.body OR old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET body = new.body,
    live = new.is_deleted = 0 AND CASE WHEN new.document_id IS NOT NULL
      THEN EXISTS (SELECT 1 FROM documents d WHERE d.id = new.document_id AND d.is_deleted = 0)
      ELSE EXISTS (SELECT 1 FROM rows r JOIN tables t ON t.id = r.table_id WHERE r.id = new.row_id AND r.is_deleted = 0 AND t.is_deleted = 0) END
  WHERE record_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `search_comments_ad` AFTER DELETE ON `comments` BEGIN
  DELETE FROM search_entries WHERE record_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `search_document_comments_au` AFTER UPDATE OF is_deleted ON `documents` WHEN old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = search_entries.record_id AND c.is_deleted = 1)
  WHERE record_id IN (SELECT id FROM comments WHERE document_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `search_row_comments_au` AFTER UPDATE OF is_deleted ON `rows` WHEN old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0
    AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = new.table_id AND t.is_deleted = 1)
    AND NOT EXISTS (SELECT 1 FROM comments c WHERE c.id = search_entries.record_id AND c.is_deleted = 1)
  WHERE record_id IN (SELECT id FROM comments WHERE row_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER `search_table_comments_au` AFTER UPDATE OF is_deleted ON `tables` WHEN old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0
    AND EXISTS (SELECT 1 FROM comments c JOIN rows r ON r.id = c.row_id WHERE c.id = search_entries.record_id AND c.is_deleted = 0 AND r.is_deleted = 0)
  WHERE record_id IN (SELECT c.id FROM comments c JOIN rows r ON r.id = c.row_id WHERE r.table_id = new.id);
END;
--> statement-breakpoint
INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, document_id, row_id, live)
SELECT c.id, 'comment', '', c.body, c.workspace_id, c.project_id, c.document_id, c.row_id,
  c.is_deleted = 0 AND CASE WHEN c.document_id IS NOT NULL
    THEN EXISTS (SELECT 1 FROM documents d WHERE d.id = c.document_id AND d.is_deleted = 0)
    ELSE EXISTS (SELECT 1 FROM rows r JOIN tables t ON t.id = r.table_id WHERE r.id = c.row_id AND r.is_deleted = 0 AND t.is_deleted = 0) END
FROM comments c WHERE true
ON CONFLICT (record_id) DO NOTHING;
