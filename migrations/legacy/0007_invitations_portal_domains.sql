CREATE TABLE `member_invitations` (
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
CREATE UNIQUE INDEX `member_invitations_target_idx` ON `member_invitations` (`organization_id`,`workspace_id`,`email`);--> statement-breakpoint
CREATE INDEX `member_invitations_email_idx` ON `member_invitations` (`email`,`accepted_at`);--> statement-breakpoint
CREATE INDEX `member_invitations_org_idx` ON `member_invitations` (`organization_id`,`accepted_at`);--> statement-breakpoint
ALTER TABLE `invitations` ADD `organization_id` text;--> statement-breakpoint
CREATE INDEX `invitations_org_idx` ON `invitations` (`organization_id`,`accepted_at`);--> statement-breakpoint
UPDATE `invitations` SET `organization_id` = (SELECT w.`organization_id` FROM `documents` d JOIN `workspaces` w ON w.`id` = d.`workspace_id` WHERE d.`id` = `invitations`.`document_id`);--> statement-breakpoint
-- Domains claimed before ownership checks start pending (never served until verified), each with its own TXT token.
DROP INDEX `published_entries_domain_uq`;--> statement-breakpoint
ALTER TABLE `published_entries` ADD `domain_token` text;--> statement-breakpoint
ALTER TABLE `published_entries` ADD `domain_verified_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `published_entries_verified_domain_uq` ON `published_entries` (`domain`) WHERE domain_verified_at IS NOT NULL;--> statement-breakpoint
UPDATE `published_entries` SET `domain_token` = lower(hex(randomblob(16))) WHERE `domain` IS NOT NULL;
