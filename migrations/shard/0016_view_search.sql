-- Saved views are found by search by name (docs/api-guide.md › Search, › Views and aggregates), under their table's
-- read rule:
-- 1. A view's entry (kind 'view', title = its name, body '') has the scope words of a row of its table: `r<projectId>`
--    (tables follow their project), so the index confines a search to the views the caller could read. The generated
--    `indexed_scope` gains that case (a generated column is redefined by dropping and adding it again, with the view
--    and the triggers that read it); every other entry keeps its words, so the index needs no rebuild.
-- 2. The entry is live while the view is not a tombstone and its table is live (a deleted table takes its views out
--    of the index; a restore puts them back). Never on a portal: portal search asks for `kdocument`.
DROP TRIGGER IF EXISTS `search_entries_ai`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_ad`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `search_entries_au`;
--> statement-breakpoint
DROP VIEW IF EXISTS `search_indexed`;
--> statement-breakpoint
ALTER TABLE `search_entries` DROP COLUMN `indexed_scope`;
--> statement-breakpoint
ALTER TABLE `search_entries` ADD `indexed_scope` text GENERATED ALWAYS AS (CASE
  WHEN `kind` = 'comment' THEN
    CASE WHEN `live` = 1 THEN 'kcomment w' || COALESCE(`workspace_id`, '') || ' p' || COALESCE(`project_id`, '') ||
      CASE WHEN `document_id` IS NOT NULL THEN ' d' || `document_id` ELSE ' r' || COALESCE(`project_id`, '') END
    ELSE '' END
  WHEN `kind` = 'view' THEN
    CASE WHEN `live` = 1 THEN 'kview w' || COALESCE(`workspace_id`, '') || ' p' || COALESCE(`project_id`, '') ||
      ' r' || COALESCE(`project_id`, '')
    ELSE '' END
  ELSE `scope` END) VIRTUAL;
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
CREATE TRIGGER `search_views_ai` AFTER INSERT ON `table_views` BEGIN
  INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
  VALUES (new.id, 'view', new.name, '', new.workspace_id, new.project_id,
    new.is_deleted = 0 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = new.table_id AND t.is_deleted = 0))
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;
--> statement-breakpoint
CREATE TRIGGER `search_views_au` AFTER UPDATE OF name, is_deleted ON `table_views`
  WHEN old.name IS NOT new.name OR old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET title = new.name,
    live = new.is_deleted = 0 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = new.table_id AND t.is_deleted = 0)
  WHERE record_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER `search_views_ad` AFTER DELETE ON `table_views` BEGIN
  DELETE FROM search_entries WHERE record_id = old.id;
END;
--> statement-breakpoint
CREATE TRIGGER `search_table_views_au` AFTER UPDATE OF is_deleted ON `tables` WHEN old.is_deleted IS NOT new.is_deleted BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0
    AND EXISTS (SELECT 1 FROM table_views v WHERE v.id = search_entries.record_id AND v.is_deleted = 0)
  WHERE record_id IN (SELECT id FROM table_views WHERE table_id = new.id);
END;
--> statement-breakpoint
INSERT INTO search_entries (record_id, kind, title, body, workspace_id, project_id, live)
SELECT v.id, 'view', v.name, '', v.workspace_id, v.project_id,
  v.is_deleted = 0 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = v.table_id AND t.is_deleted = 0)
FROM table_views v WHERE true
ON CONFLICT (record_id) DO NOTHING;
