-- A shard database's schema (bindings SHARD_k; docs/scaling.md "Migrations per kind of database"): everything inside
-- an organization, the copies of users and Idempotency-Key claims every shard keeps, the search index (FTS5), and
-- the fence with its triggers on every shard table. It is the end state of migrations/legacy for these tables,
-- object for object, and every statement is IF NOT EXISTS: a database migrated before the split takes it as a no-op.
CREATE TABLE IF NOT EXISTS `organization_members` (
	`organization_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `user_id`),
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `organization_members_user_idx` ON `organization_members` (`user_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `users_email_uq` ON `users` (`email`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`reference` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`icon` text,
	`emoji` text,
	`published` text DEFAULT '[]' NOT NULL,
	`published_branding` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `projects_workspace_idx` ON `projects` (`workspace_id`,`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `workspace_collaborators` (
	`workspace_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `user_id`),
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `workspace_collaborators_user_idx` ON `workspace_collaborators` (`user_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`is_default` integer DEFAULT false NOT NULL,
	`is_shared` integer DEFAULT false NOT NULL,
	`owner_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `workspaces_org_idx` ON `workspaces` (`organization_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `document_collaborators` (
	`document_id` text NOT NULL,
	`user_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`document_id`, `user_id`),
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `document_collaborators_user_idx` ON `document_collaborators` (`user_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `documents` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`parent_id` text,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`reference` text DEFAULT '' NOT NULL,
	`order` integer DEFAULT 0 NOT NULL,
	`is_published` integer DEFAULT false NOT NULL,
	`published_settings` text,
	`external` text,
	`icon` text,
	`emoji` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`deleted_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `documents_project_idx` ON `documents` (`project_id`,`parent_id`,`order`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `documents_parent_idx` ON `documents` (`parent_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`document_id` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`accepted_at` integer, `organization_id` text,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `invitations_email_idx` ON `invitations` (`email`,`accepted_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `cells` (
	`id` text PRIMARY KEY NOT NULL,
	`table_id` text NOT NULL,
	`row_id` text NOT NULL,
	`column_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`is_identifier` integer DEFAULT false NOT NULL,
	`data` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `cells_row_column_uq` ON `cells` (`row_id`,`column_id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `cells_table_idx` ON `cells` (`table_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `clause_references` (
	`id` text PRIMARY KEY NOT NULL,
	`block_id` text NOT NULL,
	`document_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`hierarchy` text NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `clause_references_document_idx` ON `clause_references` (`document_id`,`is_deleted`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `columns` (
	`id` text PRIMARY KEY NOT NULL,
	`table_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`is_identifier` integer DEFAULT false NOT NULL,
	`data` text NOT NULL,
	`formula` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`table_id`) REFERENCES `tables`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `columns_table_slug_uq` ON `columns` (`table_id`,`slug`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `columns_table_idx` ON `columns` (`table_id`,`is_deleted`,`id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `rows` (
	`id` text PRIMARY KEY NOT NULL,
	`table_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `seq` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`table_id`) REFERENCES `tables`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `rows_table_idx` ON `rows` (`table_id`,`is_deleted`,`id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `table_references` (
	`id` text PRIMARY KEY NOT NULL,
	`origin_id` text DEFAULT '' NOT NULL,
	`document_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`table_id` text NOT NULL,
	`column_id` text NOT NULL,
	`related_row_id` text,
	`row_id` text,
	`one_to_many_column_id` text,
	`one_to_many_instance_ids` text,
	`type` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `is_deleted` integer DEFAULT false NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`table_id`) REFERENCES `tables`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`column_id`) REFERENCES `columns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `tables` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`document_id` text,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `tables_project_idx` ON `tables` (`project_id`,`is_deleted`,`id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `audio_media` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`file_name` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`r2_key` text NOT NULL,
	`etag` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `audio_media_document_idx` ON `audio_media` (`document_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `document_contents` (
	`document_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`size` integer NOT NULL,
	`r2_key` text NOT NULL,
	`updated_by` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `document_settings` (
	`document_id` text PRIMARY KEY NOT NULL,
	`list_template_id` text DEFAULT '' NOT NULL,
	`imported_term_id` text DEFAULT '' NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `docx_versions` (
	`document_id` text NOT NULL,
	`version` integer NOT NULL,
	`r2_key` text NOT NULL,
	`size` integer NOT NULL,
	`sha256` text NOT NULL,
	`etag` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`document_id`, `version`),
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `snapshots` (
	`id` text PRIMARY KEY NOT NULL,
	`document_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`content_version` integer NOT NULL,
	`content_key` text,
	`content_size` integer DEFAULT 0 NOT NULL,
	`docx_version` integer,
	`docx_key` text,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `snapshots_document_idx` ON `snapshots` (`document_id`,`id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `snapshots_content_key_idx` ON `snapshots` (`content_key`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `table_references_document_idx` ON `table_references` (`document_id`,`is_deleted`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `rows_table_seq_idx` ON `rows` (`table_id`,`seq`,`id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`claim` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer,
	`content_type` text,
	`body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `published_entries` (
	`slug` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`domain` text,
	`homepage` text DEFAULT '' NOT NULL,
	`password_hash` text,
	`disabled` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`allow_indexing` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `domain_token` text, `domain_verified_at` integer,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `published_entries_project_idx` ON `published_entries` (`project_id`,`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automation_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`automation_id` text NOT NULL,
	`run_id` text NOT NULL,
	`action_id` text NOT NULL,
	`url` text NOT NULL,
	`method` text NOT NULL,
	`headers` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`retry_index` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `claim_token` text, `claimed_until` integer,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_deliveries_list_idx` ON `automation_deliveries` (`automation_id`,`id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_deliveries_created_idx` ON `automation_deliveries` (`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automation_event_triggers` (
	`automation_id` text NOT NULL,
	`position` integer NOT NULL,
	`project_id` text NOT NULL,
	`event` text NOT NULL,
	`table_id` text,
	`column_id` text,
	`document_ids` text,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `automation_event_triggers_pk` ON `automation_event_triggers` (`automation_id`,`position`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_event_triggers_lookup_idx` ON `automation_event_triggers` (`project_id`,`event`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`automation_id` text NOT NULL,
	`project_id` text NOT NULL,
	`event_key` text,
	`trigger` text NOT NULL,
	`depth` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`retry_of` text,
	`started_at` integer,
	`finished_at` integer,
	`operations` integer DEFAULT 0 NOT NULL,
	`affected_rows` integer DEFAULT 0 NOT NULL,
	`external_writes` integer DEFAULT 0 NOT NULL,
	`error` text,
	`actions` text NOT NULL,
	`delivery_ids` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `cascade_id` text,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `automation_runs_event_uq` ON `automation_runs` (`automation_id`,`event_key`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_runs_list_idx` ON `automation_runs` (`automation_id`,`id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_runs_created_idx` ON `automation_runs` (`created_at`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_runs_status_idx` ON `automation_runs` (`status`,`started_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`public_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_by` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`prompt` text DEFAULT '' NOT NULL,
	`prompt_doc` text,
	`icon` text,
	`scope` text NOT NULL,
	`triggers` text NOT NULL,
	`actions` text NOT NULL,
	`conditions` text,
	`references` text NOT NULL,
	`on_missing_reference` text DEFAULT 'fail' NOT NULL,
	`behavior` text NOT NULL,
	`notify` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`run_from_button` integer DEFAULT false NOT NULL,
	`webhook_secret` text NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_run_at` integer,
	`next_run_at` integer,
	`claimed_for` integer,
	`claim_token` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL, `version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automations_project_idx` ON `automations` (`project_id`,`is_deleted`,`id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automations_due_idx` ON `automations` (`next_run_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `collab_rooms` (
	`document_id` text PRIMARY KEY NOT NULL,
	`live` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `collab_rooms_live_idx` ON `collab_rooms` (`live`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automation_cascades` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`writes` integer DEFAULT 0 NOT NULL,
	`deliveries` integer DEFAULT 0 NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`last_grant` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
, `planned_writes` integer DEFAULT 0 NOT NULL, `planned_deliveries` integer DEFAULT 0 NOT NULL);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_cascades_created_idx` ON `automation_cascades` (`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `automation_project_days` (
	`project_id` text NOT NULL,
	`day` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`notified` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `automation_project_days_pk` ON `automation_project_days` (`project_id`,`day`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `automation_runs_cascade_idx` ON `automation_runs` (`cascade_id`,`status`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `member_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text DEFAULT '' NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`accepted_at` integer,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`invited_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `member_invitations_target_idx` ON `member_invitations` (`organization_id`,`workspace_id`,`email`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `member_invitations_email_idx` ON `member_invitations` (`email`,`accepted_at`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `member_invitations_org_idx` ON `member_invitations` (`organization_id`,`accepted_at`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `invitations_org_idx` ON `invitations` (`organization_id`,`accepted_at`);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `published_entries_verified_domain_uq` ON `published_entries` (`domain`) WHERE domain_verified_at IS NOT NULL;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `search_entries` (
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
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `search_entries_record_uq` ON `search_entries` (`record_id`);
--> statement-breakpoint
CREATE VIRTUAL TABLE IF NOT EXISTS `search_fts` USING fts5(title, body, scope, content='search_entries', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3');
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_entries_ai` AFTER INSERT ON `search_entries` BEGIN
  INSERT INTO search_fts (rowid, title, body, scope) VALUES (new.id, new.title, new.body, new.scope);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_entries_ad` AFTER DELETE ON `search_entries` BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope) VALUES ('delete', old.id, old.title, old.body, old.scope);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_entries_au` AFTER UPDATE OF title, body, kind, record_id, workspace_id, project_id, live ON `search_entries`
WHEN old.title IS NOT new.title OR old.body IS NOT new.body OR old.scope IS NOT new.scope BEGIN
  INSERT INTO search_fts (search_fts, rowid, title, body, scope) VALUES ('delete', old.id, old.title, old.body, old.scope);
  INSERT INTO search_fts (rowid, title, body, scope) VALUES (new.id, new.title, new.body, new.scope);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_documents_ai` AFTER INSERT ON `documents` BEGIN
  INSERT INTO search_entries (record_id, kind, title, workspace_id, project_id, live)
  VALUES (new.id, CASE WHEN new.type = 'EXTERNAL' THEN 'file' ELSE 'document' END, new.name, new.workspace_id, new.project_id, new.is_deleted = 0)
  ON CONFLICT (record_id) DO UPDATE SET title = excluded.title, kind = excluded.kind, workspace_id = excluded.workspace_id,
    project_id = excluded.project_id, live = excluded.live;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_documents_au` AFTER UPDATE OF name, is_deleted, workspace_id, project_id ON `documents` BEGIN
  UPDATE search_entries SET title = new.name, workspace_id = new.workspace_id, project_id = new.project_id, live = new.is_deleted = 0
  WHERE record_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_rows_au` AFTER UPDATE OF is_deleted ON `rows` BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0 AND NOT EXISTS (SELECT 1 FROM tables t WHERE t.id = new.table_id AND t.is_deleted = 1)
  WHERE record_id = new.id;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_tables_au` AFTER UPDATE OF is_deleted ON `tables` BEGIN
  UPDATE search_entries SET live = new.is_deleted = 0 AND EXISTS (SELECT 1 FROM rows r WHERE r.id = search_entries.record_id AND r.is_deleted = 0)
  WHERE record_id IN (SELECT id FROM rows WHERE table_id = new.id);
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_cells_ai` AFTER INSERT ON `cells`
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
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `search_cells_au` AFTER UPDATE OF data, is_deleted, is_identifier ON `cells`
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
END;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `cells_column_row_idx` ON `cells` (`column_id`,`row_id`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `columns_link_target_idx` ON `columns` (json_extract(`data`, '$.oneMany.tableId')) WHERE `is_deleted` = 0 AND json_extract(`data`, '$.type') = 'oneMany';
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `shard_fence` (
	`logical` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`moved_to` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `shard_guard` (
	`logical` integer NOT NULL,
	`access` text NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `shard_guard_bi` BEFORE INSERT ON `shard_guard` BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence WHERE logical = new.logical AND state = 'moved';
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence WHERE logical = new.logical AND state = 'read-only' AND new.access = 'write';
  SELECT RAISE(IGNORE);
END;
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `shard_mover` (
	`id` integer PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organizations_insert` BEFORE INSERT ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organizations_update` BEFORE UPDATE ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organizations_delete` BEFORE DELETE ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organization_members_insert` BEFORE INSERT ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organization_members_update` BEFORE UPDATE ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_organization_members_delete` BEFORE DELETE ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_member_invitations_insert` BEFORE INSERT ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_member_invitations_update` BEFORE UPDATE ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_member_invitations_delete` BEFORE DELETE ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_invitations_insert` BEFORE INSERT ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_invitations_update` BEFORE UPDATE ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_invitations_delete` BEFORE DELETE ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspaces_insert` BEFORE INSERT ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspaces_update` BEFORE UPDATE ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspaces_delete` BEFORE DELETE ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspace_collaborators_insert` BEFORE INSERT ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspace_collaborators_update` BEFORE UPDATE ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_workspace_collaborators_delete` BEFORE DELETE ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_projects_insert` BEFORE INSERT ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_projects_update` BEFORE UPDATE ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_projects_delete` BEFORE DELETE ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_documents_insert` BEFORE INSERT ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_documents_update` BEFORE UPDATE ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_documents_delete` BEFORE DELETE ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_collaborators_insert` BEFORE INSERT ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_collaborators_update` BEFORE UPDATE ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_collaborators_delete` BEFORE DELETE ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_tables_insert` BEFORE INSERT ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_tables_update` BEFORE UPDATE ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_tables_delete` BEFORE DELETE ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_columns_insert` BEFORE INSERT ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_columns_update` BEFORE UPDATE ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_columns_delete` BEFORE DELETE ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_rows_insert` BEFORE INSERT ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_rows_update` BEFORE UPDATE ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_rows_delete` BEFORE DELETE ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_cells_insert` BEFORE INSERT ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_cells_update` BEFORE UPDATE ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_cells_delete` BEFORE DELETE ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_table_references_insert` BEFORE INSERT ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_table_references_update` BEFORE UPDATE ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_table_references_delete` BEFORE DELETE ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_clause_references_insert` BEFORE INSERT ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_clause_references_update` BEFORE UPDATE ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_clause_references_delete` BEFORE DELETE ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_contents_insert` BEFORE INSERT ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_contents_update` BEFORE UPDATE ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_contents_delete` BEFORE DELETE ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_settings_insert` BEFORE INSERT ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_settings_update` BEFORE UPDATE ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_document_settings_delete` BEFORE DELETE ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_docx_versions_insert` BEFORE INSERT ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_docx_versions_update` BEFORE UPDATE ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_docx_versions_delete` BEFORE DELETE ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_audio_media_insert` BEFORE INSERT ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_audio_media_update` BEFORE UPDATE ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_audio_media_delete` BEFORE DELETE ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_snapshots_insert` BEFORE INSERT ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_snapshots_update` BEFORE UPDATE ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_snapshots_delete` BEFORE DELETE ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automations_insert` BEFORE INSERT ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automations_update` BEFORE UPDATE ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automations_delete` BEFORE DELETE ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_event_triggers_insert` BEFORE INSERT ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_event_triggers_update` BEFORE UPDATE ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_event_triggers_delete` BEFORE DELETE ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_runs_insert` BEFORE INSERT ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_runs_update` BEFORE UPDATE ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_runs_delete` BEFORE DELETE ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_deliveries_insert` BEFORE INSERT ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.automation_id) = 28 AND substr(NEW.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.automation_id) = 28 AND substr(NEW.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.automation_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_deliveries_update` BEFORE UPDATE ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_deliveries_delete` BEFORE DELETE ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_cascades_insert` BEFORE INSERT ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_cascades_update` BEFORE UPDATE ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_cascades_delete` BEFORE DELETE ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_project_days_insert` BEFORE INSERT ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_project_days_update` BEFORE UPDATE ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_automation_project_days_delete` BEFORE DELETE ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_published_entries_insert` BEFORE INSERT ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_published_entries_update` BEFORE UPDATE ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_published_entries_delete` BEFORE DELETE ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_collab_rooms_insert` BEFORE INSERT ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_collab_rooms_update` BEFORE UPDATE ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `fence_collab_rooms_delete` BEFORE DELETE ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `clause_references_created_idx` ON `clause_references` (`created_at`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `table_references_created_idx` ON `table_references` (`created_at`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `published_entries_updated_idx` ON `published_entries` (`updated_at`);
