CREATE TABLE `automation_cascades` (
	`id` text PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`writes` integer DEFAULT 0 NOT NULL,
	`deliveries` integer DEFAULT 0 NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`last_grant` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `automation_cascades_created_idx` ON `automation_cascades` (`created_at`);--> statement-breakpoint
CREATE TABLE `automation_project_days` (
	`project_id` text NOT NULL,
	`day` text NOT NULL,
	`runs` integer DEFAULT 0 NOT NULL,
	`notified` integer DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_project_days_pk` ON `automation_project_days` (`project_id`,`day`);--> statement-breakpoint
ALTER TABLE `automation_deliveries` ADD `claim_token` text;--> statement-breakpoint
ALTER TABLE `automation_deliveries` ADD `claimed_until` integer;--> statement-breakpoint
ALTER TABLE `automation_runs` ADD `cascade_id` text;--> statement-breakpoint
CREATE INDEX `automation_runs_cascade_idx` ON `automation_runs` (`cascade_id`,`status`);--> statement-breakpoint
ALTER TABLE `automations` ADD `version` integer DEFAULT 0 NOT NULL;