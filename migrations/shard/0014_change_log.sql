CREATE TABLE `change_log` (
	`seq` integer NOT NULL,
	`record_id` text NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text,
	`table_id` text,
	`actor` text NOT NULL,
	`source` text NOT NULL,
	`changes` text,
	PRIMARY KEY(`seq`, `record_id`)
);
--> statement-breakpoint
CREATE INDEX `change_log_workspace_idx` ON `change_log` (`workspace_id`,`seq`,`record_id`);--> statement-breakpoint
CREATE INDEX `change_log_project_idx` ON `change_log` (`project_id`,`seq`,`record_id`);--> statement-breakpoint
CREATE INDEX `change_log_table_idx` ON `change_log` (`table_id`,`seq`,`record_id`);--> statement-breakpoint
CREATE INDEX `change_log_record_idx` ON `change_log` (`record_id`,`seq`);--> statement-breakpoint
CREATE INDEX `change_log_at_idx` ON `change_log` (`at`);