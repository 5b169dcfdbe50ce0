-- Notifications on their way to the directory (docs/scaling.md "Notifications: an outbox"): the table and its index
-- by drizzle-kit; the fence triggers below it by hand, as on every shard table (the key column `id` names the
-- notification's logical shard; a move copies the table, src/db/shardKeys.ts).
CREATE TABLE `notification_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`title` text NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`data` text,
	`created_at` integer NOT NULL,
	`queued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notification_outbox_queued_idx` ON `notification_outbox` (`queued_at`);--> statement-breakpoint
CREATE TRIGGER `fence_notification_outbox_insert` BEFORE INSERT ON `notification_outbox`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_notification_outbox_update` BEFORE UPDATE ON `notification_outbox`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_notification_outbox_delete` BEFORE DELETE ON `notification_outbox`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;
