ALTER TABLE `automation_cascades` ADD `planned_writes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `automation_cascades` ADD `planned_deliveries` integer DEFAULT 0 NOT NULL;