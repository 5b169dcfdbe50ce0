CREATE TABLE `user_organizations` (
	`user_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`name` text NOT NULL,
	`owner_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`member_updated_at` integer NOT NULL,
	`synced_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `organization_id`)
);
--> statement-breakpoint
CREATE INDEX `user_organizations_synced_idx` ON `user_organizations` (`synced_at`);