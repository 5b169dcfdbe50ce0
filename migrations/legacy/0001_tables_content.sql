CREATE TABLE `audio_media` (
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
CREATE INDEX `audio_media_document_idx` ON `audio_media` (`document_id`);--> statement-breakpoint
CREATE TABLE `document_contents` (
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
CREATE TABLE `document_settings` (
	`document_id` text PRIMARY KEY NOT NULL,
	`list_template_id` text DEFAULT '' NOT NULL,
	`imported_term_id` text DEFAULT '' NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `docx_versions` (
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
CREATE TABLE `snapshots` (
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
CREATE INDEX `snapshots_document_idx` ON `snapshots` (`document_id`,`id`);--> statement-breakpoint
CREATE INDEX `snapshots_content_key_idx` ON `snapshots` (`content_key`);--> statement-breakpoint
DROP INDEX `table_references_document_idx`;--> statement-breakpoint
ALTER TABLE `table_references` ADD `is_deleted` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `table_references_document_idx` ON `table_references` (`document_id`,`is_deleted`);--> statement-breakpoint
ALTER TABLE `rows` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `rows_table_seq_idx` ON `rows` (`table_id`,`seq`,`id`);