-- Domains claimed before ownership checks start pending (never served until verified), each with its own TXT token.
DROP INDEX `published_entries_domain_uq`;--> statement-breakpoint
ALTER TABLE `published_entries` ADD `domain_token` text;--> statement-breakpoint
ALTER TABLE `published_entries` ADD `domain_verified_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `published_entries_verified_domain_uq` ON `published_entries` (`domain`) WHERE domain_verified_at IS NOT NULL;--> statement-breakpoint
UPDATE `published_entries` SET `domain_token` = lower(hex(randomblob(16))) WHERE `domain` IS NOT NULL;
