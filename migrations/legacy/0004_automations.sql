CREATE TABLE `automation_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`automation_id` text NOT NULL,
	`run_id` text NOT NULL,
	`action_id` text NOT NULL,
	`url` text NOT NULL,
	`method` text NOT NULL,
	`headers` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` text NOT NULL,
	`retry_index` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `automation_deliveries_list_idx` ON `automation_deliveries` (`automation_id`,`id`);--> statement-breakpoint
CREATE INDEX `automation_deliveries_created_idx` ON `automation_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `automation_event_triggers` (
	`automation_id` text NOT NULL,
	`position` integer NOT NULL,
	`project_id` text NOT NULL,
	`event` text NOT NULL,
	`table_id` text,
	`column_id` text,
	`document_ids` text,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_event_triggers_pk` ON `automation_event_triggers` (`automation_id`,`position`);--> statement-breakpoint
CREATE INDEX `automation_event_triggers_lookup_idx` ON `automation_event_triggers` (`project_id`,`event`);--> statement-breakpoint
CREATE TABLE `automation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`automation_id` text NOT NULL,
	`project_id` text NOT NULL,
	`event_key` text,
	`trigger` text NOT NULL,
	`depth` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`retry_of` text,
	`started_at` integer,
	`finished_at` integer,
	`operations` integer DEFAULT 0 NOT NULL,
	`affected_rows` integer DEFAULT 0 NOT NULL,
	`external_writes` integer DEFAULT 0 NOT NULL,
	`error` text,
	`actions` text NOT NULL,
	`delivery_ids` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_runs_event_uq` ON `automation_runs` (`automation_id`,`event_key`);--> statement-breakpoint
CREATE INDEX `automation_runs_list_idx` ON `automation_runs` (`automation_id`,`id`);--> statement-breakpoint
CREATE INDEX `automation_runs_created_idx` ON `automation_runs` (`created_at`);--> statement-breakpoint
CREATE INDEX `automation_runs_status_idx` ON `automation_runs` (`status`,`started_at`);--> statement-breakpoint
CREATE TABLE `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`public_id` text NOT NULL,
	`project_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`created_by` text NOT NULL,
	`name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`prompt` text DEFAULT '' NOT NULL,
	`prompt_doc` text,
	`icon` text,
	`scope` text NOT NULL,
	`triggers` text NOT NULL,
	`actions` text NOT NULL,
	`conditions` text,
	`references` text NOT NULL,
	`on_missing_reference` text DEFAULT 'fail' NOT NULL,
	`behavior` text NOT NULL,
	`notify` text NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`run_from_button` integer DEFAULT false NOT NULL,
	`webhook_secret` text NOT NULL,
	`consecutive_failures` integer DEFAULT 0 NOT NULL,
	`last_run_at` integer,
	`next_run_at` integer,
	`claimed_for` integer,
	`claim_token` text,
	`is_deleted` integer DEFAULT false NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`owner_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`created_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `automations_project_idx` ON `automations` (`project_id`,`is_deleted`,`id`);--> statement-breakpoint
CREATE INDEX `automations_due_idx` ON `automations` (`next_run_at`);