CREATE TABLE `shard_fence` (
	`logical` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`moved_to` text,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
-- The fence's guard (src/db/shardFence.ts, docs/scaling.md "Plan", step 8), written by hand: drizzle-kit cannot
-- express triggers, and the guard table stays out of src/db/schema on purpose (it never holds a row). A batch that
-- must only run where its logical shard is served inserts (logical, access) here first; the trigger aborts the
-- whole batch (D1 runs a batch as one transaction) when the fence refuses, with a message naming the reason, and
-- otherwise drops the row (RAISE(IGNORE)). Writes need `active`; reads need `active` or `read-only`.
CREATE TABLE `shard_guard` (
	`logical` integer NOT NULL,
	`access` text NOT NULL
);--> statement-breakpoint
CREATE TRIGGER `shard_guard_bi` BEFORE INSERT ON `shard_guard` BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence WHERE logical = new.logical AND state = 'moved';
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence WHERE logical = new.logical AND state = 'read-only' AND new.access = 'write';
  SELECT RAISE(IGNORE);
END;
