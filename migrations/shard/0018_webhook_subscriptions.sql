CREATE TABLE `webhook_subscription_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`subscription_id` text NOT NULL,
	`body` text NOT NULL,
	`entry_count` integer NOT NULL,
	`from_seq` integer NOT NULL,
	`from_record_id` text NOT NULL,
	`to_seq` integer NOT NULL,
	`to_record_id` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`retry_index` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`claim_token` text,
	`claimed_until` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_subscription_deliveries_list_idx` ON `webhook_subscription_deliveries` (`subscription_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_subscription_deliveries_due_idx` ON `webhook_subscription_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE TABLE `webhook_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`table_id` text,
	`owner_id` text NOT NULL,
	`url` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`events` text NOT NULL,
	`column_ids` text,
	`secret` text NOT NULL,
	`status` text NOT NULL,
	`disabled_reason` text,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`cursor_seq` integer NOT NULL,
	`cursor_record_id` text NOT NULL,
	`pending_delivery_id` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_owner_idx` ON `webhook_subscriptions` (`owner_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_project_idx` ON `webhook_subscriptions` (`project_id`,`id`);--> statement-breakpoint
CREATE INDEX `webhook_subscriptions_due_idx` ON `webhook_subscriptions` (`status`,`is_deleted`,`pending_delivery_id`);