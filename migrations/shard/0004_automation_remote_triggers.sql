-- Event triggers watching a project of another organization, kept where that project's events are looked up
-- (docs/scaling.md "Triggers across organizations"): the table and its indexes by drizzle-kit; the fence triggers
-- below them by hand, as on every shard table (the key column `project_id` names the watched project's logical
-- shard; a move copies the table, src/db/shardKeys.ts).
CREATE TABLE `automation_remote_triggers` (
	`project_id` text NOT NULL,
	`event` text NOT NULL,
	`automation_id` text NOT NULL,
	`position` integer NOT NULL,
	`version` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `automation_remote_triggers_pk` ON `automation_remote_triggers` (`project_id`,`event`,`automation_id`,`position`);--> statement-breakpoint
CREATE INDEX `automation_remote_triggers_automation_idx` ON `automation_remote_triggers` (`automation_id`);--> statement-breakpoint
CREATE TRIGGER `fence_automation_remote_triggers_insert` BEFORE INSERT ON `automation_remote_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_remote_triggers_update` BEFORE UPDATE ON `automation_remote_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_remote_triggers_delete` BEFORE DELETE ON `automation_remote_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;
