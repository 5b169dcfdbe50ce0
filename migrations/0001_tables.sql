DROP INDEX `table_references_document_idx`;--> statement-breakpoint
ALTER TABLE `table_references` ADD `is_deleted` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `table_references_document_idx` ON `table_references` (`document_id`,`is_deleted`);--> statement-breakpoint
ALTER TABLE `rows` ADD `seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `rows_table_seq_idx` ON `rows` (`table_id`,`seq`,`id`);