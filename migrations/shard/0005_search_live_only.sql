-- Search whose answers and costs depend only on what the caller may read (docs/api-guide.md › Search):
-- 1. The full-text index holds live records only. Its content is the view `search_indexed`, which shows a deleted
--    record's title and body as empty: a delete takes its words out of the index (and so out of every word list a
--    query expands), a restore puts them back, and a 'rebuild' does the same.
-- 2. Hard deletes of documents and rows (an atomic import undone, a purge) delete their entries.
-- 3. A row's text leaves out the cells of deleted columns; deleting or restoring a column rewrites the entries of the
--    rows holding text in it (its cells, through cells_column_row_idx), no others.
-- 4. The prefix index covers 3-character prefixes only: shorter prefixes are refused by the query translation.
DROP TRIGGER IF EXISTS `search_entries_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_au`;
--> statement-breakpoint
DROP TABLE IF EXISTS `search_fts`;
--> statement-breakpoint
CREATE VIEW `search_indexed` AS SELECT `id`,
  CASE WHEN `live` = 1 THEN `title` ELSE '' END AS `title`,
  CASE WHEN `live` = 1 THEN `body` ELSE '' END AS `body`,
  `scope` FROM `search_entries`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_fts` USING fts5(title, body, scope, content='search_indexed', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='3');
--> statement-breakpoint
INSERT INTO `search_fts` (`search_fts`) VALUES ('rebuild');
--> statement-breakpoint
CREATE TRIGGER `search_entries_ai` AFTER INSERT ON `search_entries` BEGIN
  INSERT INTO search_fts (rowid, title, body, scope)
  VALUES (new.id, CASE WHEN new.live = 1 THEN new.title ELSE '' END, CASE WHEN new.live = 1 THEN new.body ELSE '' END, new.scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_ad` AFTER DELETE ON `search_entries` BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope)
  VALUES ('delete', old.id, CASE WHEN old.live = 1 THEN old.title ELSE '' END, CASE WHEN old.live = 1 THEN old.body ELSE '' END, old.scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_entries_au` AFTER UPDATE OF title, body, kind, record_id, workspace_id, project_id, live ON `search_entries`
WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.scope IS NOT new.scope BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope)
  VALUES ('delete', old.id, CASE WHEN old.live = 1 THEN old.title ELSE '' END, CASE WHEN old.live = 1 THEN old.body ELSE '' END, old.scope);
  INSERT INTO search_fts (rowid, title, body, scope)
  VALUES (new.id, CASE WHEN new.live = 1 THEN new.title ELSE '' END, CASE WHEN new.live = 1 THEN new.body ELSE '' END, new.scope);
END;
--> statement-breakpoint
CREATE TRIGGER `search_documents_ad` AFTER DELETE ON `documents` BEGIN
  DELETE FROM search_entries WHERE record_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `search_rows_ad` AFTER DELETE ON `rows` BEGIN
  DELETE FROM search_entries WHERE record_id = old.id;
END;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_cells_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_cells_au`;
--> statement-breakpoint
CREATE TRIGGER `search_cells_ai` AFTER INSERT ON `cells`
  WHEN new.is_identifier = 1 OR (SELECT json_extract(co.data, '$.type') FROM columns co WHERE co.id = new.column_id) IN ('text', 'url', 'email')
BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
  SELECT new.row_id, 'row',
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 1 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 0 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'
        AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
    new.workspace_id, r.project_id, r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
  FROM rows r WHERE r.id = new.row_id
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;
--> statement-breakpoint
CREATE TRIGGER `search_cells_au` AFTER UPDATE OF data, is_deleted, is_identifier ON `cells`
  WHEN new.is_identifier = 1 OR (SELECT json_extract(co.data, '$.type') FROM columns co WHERE co.id = new.column_id) IN ('text', 'url', 'email')
BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
  SELECT new.row_id, 'row',
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 1 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
    COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = new.row_id AND c.is_identifier = 0 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'
        AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), ''),
    new.workspace_id, r.project_id, r.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = r.table_id AND t.is_deleted = 1)
  FROM rows r WHERE r.id = new.row_id
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, body = excluded.body, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;
--> statement-breakpoint
CREATE TRIGGER `search_columns_au` AFTER UPDATE OF is_deleted ON `columns` WHEN old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET
    title = COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = search_entries.record_id AND c.is_identifier = 1 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'), ''),
    body = COALESCE((SELECT group_concat(json_extract(c.data, '$'), ' ') FROM cells c JOIN columns co ON co.id = c.column_id
      WHERE c.row_id = search_entries.record_id AND c.is_identifier = 0 AND c.is_deleted = 0 AND co.is_deleted = 0 AND json_type(c.data) = 'text'
        AND json_extract(co.data, '$.type') IN ('text', 'url', 'email')), '')
  WHERE record_id IN (SELECT c.row_id FROM cells c WHERE c.column_id = new.id AND c.is_deleted = 0 AND json_type(c.data) = 'text');
END;
