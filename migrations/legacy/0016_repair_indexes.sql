CREATE INDEX `clause_references_created_idx` ON `clause_references` (`created_at`);--> statement-breakpoint
CREATE INDEX `table_references_created_idx` ON `table_references` (`created_at`);--> statement-breakpoint
CREATE INDEX `published_entries_updated_idx` ON `published_entries` (`updated_at`);