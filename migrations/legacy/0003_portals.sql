CREATE TABLE `published_entries` (
	`slug` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`domain` text,
	`homepage` text DEFAULT '' NOT NULL,
	`password_hash` text,
	`disabled` integer DEFAULT false NOT NULL,
	`expires_at` integer,
	`allow_indexing` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `published_entries_domain_uq` ON `published_entries` (`domain`);--> statement-breakpoint
CREATE INDEX `published_entries_project_idx` ON `published_entries` (`project_id`,`created_at`);