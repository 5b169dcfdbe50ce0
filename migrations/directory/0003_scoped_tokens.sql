ALTER TABLE `access_tokens` ADD `scopes` text;--> statement-breakpoint
ALTER TABLE `access_tokens` ADD `resources` text;