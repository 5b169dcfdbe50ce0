ALTER TABLE `organization_members` ADD `updated_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `organization_members_updated_idx` ON `organization_members` (`updated_at`);