-- The directory database's schema (binding DB; docs/scaling.md "Migrations per kind of database"): users, tokens,
-- notifications, Idempotency-Key claims, and the directory's indexes written by hand (shard placements, portal
-- routes, reference ids). It is the end state of migrations/legacy for these tables, object for object, and every
-- statement is IF NOT EXISTS: a database migrated before the split (which holds all of them) takes it as a no-op.
CREATE TABLE IF NOT EXISTS `access_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	`last_used_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `access_tokens_hash_uq` ON `access_tokens` (`token_hash`);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `access_tokens_user_idx` ON `access_tokens` (`user_id`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `notifications` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`data` text,
	`read_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `notifications_user_idx` ON `notifications` (`user_id`,`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `users_email_uq` ON `users` (`email`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `idempotency_keys` (
	`user_id` text NOT NULL,
	`key` text NOT NULL,
	`claim` text NOT NULL,
	`request_hash` text NOT NULL,
	`status` integer,
	`content_type` text,
	`body` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `key`)
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `idempotency_keys_created_idx` ON `idempotency_keys` (`created_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `shard_placements` (
	`logical` integer PRIMARY KEY NOT NULL,
	`binding` text NOT NULL,
	`seq` integer NOT NULL,
	`moved_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS `shard_placements_seq` ON `shard_placements` (`seq`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `portal_routes` (
	`name` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`claimed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `portal_routes_claimed_at` ON `portal_routes` (`claimed_at`);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `reference_ids` (
	`kind` text NOT NULL,
	`id` text NOT NULL,
	`document_id` text NOT NULL,
	`claimed_at` integer NOT NULL,
	PRIMARY KEY (`kind`, `id`)
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `reference_ids_claimed_at` ON `reference_ids` (`claimed_at`);
