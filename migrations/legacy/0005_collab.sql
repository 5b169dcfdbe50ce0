CREATE TABLE `collab_rooms` (
	`document_id` text PRIMARY KEY NOT NULL,
	`live` integer DEFAULT 0 NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`document_id`) REFERENCES `documents`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `collab_rooms_live_idx` ON `collab_rooms` (`live`);