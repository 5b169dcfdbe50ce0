-- Written by hand (drizzle-kit cannot express triggers); docs/scaling.md "Moving a logical shard".
--
-- 1. The fence in every shard table: a row of a logical shard whose fence in this database is not active cannot be
--    inserted, updated or deleted — "read-only" while a move copies it out, "moved" once it lives in another
--    database — whatever statement or code path tries. The logical shard of a row is the last two characters of its
--    shard key column (src/db/shardKeys.ts; a 26-character id is logical shard 0). The message names the reason
--    (src/db/shardFence.ts fenceRefusalOf): the request path answers 503 with Retry-After.
-- 2. shard_mover: the move itself writes the rows of a fenced shard (the copy into the target, the delete of the old
--    copy). Its batches insert a row here first and delete it last; a D1 batch is one transaction, so the row exists
--    only inside the mover's own batch and no other write ever sees it.
-- 3. shard_placements (read in the directory): each logical shard moved away from the database SHARD_MAP names,
--    with a sequence number so a Worker asks only for what changed since it last looked (src/db/placements.ts).
CREATE TABLE `shard_mover` (
	`id` integer PRIMARY KEY NOT NULL
);--> statement-breakpoint
CREATE TABLE `shard_placements` (
	`logical` integer PRIMARY KEY NOT NULL,
	`binding` text NOT NULL,
	`seq` integer NOT NULL,
	`moved_at` integer NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX `shard_placements_seq` ON `shard_placements` (`seq`);--> statement-breakpoint
CREATE TRIGGER `fence_organizations_insert` BEFORE INSERT ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_organizations_update` BEFORE UPDATE ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_organizations_delete` BEFORE DELETE ON `organizations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_organization_members_insert` BEFORE INSERT ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_organization_members_update` BEFORE UPDATE ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_organization_members_delete` BEFORE DELETE ON `organization_members`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_member_invitations_insert` BEFORE INSERT ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.organization_id) = 28 AND substr(NEW.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_member_invitations_update` BEFORE UPDATE ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_member_invitations_delete` BEFORE DELETE ON `member_invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.organization_id) = 28 AND substr(OLD.organization_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.organization_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_invitations_insert` BEFORE INSERT ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_invitations_update` BEFORE UPDATE ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_invitations_delete` BEFORE DELETE ON `invitations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspaces_insert` BEFORE INSERT ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.id) = 28 AND substr(NEW.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspaces_update` BEFORE UPDATE ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspaces_delete` BEFORE DELETE ON `workspaces`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.id) = 28 AND substr(OLD.id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspace_collaborators_insert` BEFORE INSERT ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspace_collaborators_update` BEFORE UPDATE ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_workspace_collaborators_delete` BEFORE DELETE ON `workspace_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_projects_insert` BEFORE INSERT ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_projects_update` BEFORE UPDATE ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_projects_delete` BEFORE DELETE ON `projects`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_documents_insert` BEFORE INSERT ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_documents_update` BEFORE UPDATE ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_documents_delete` BEFORE DELETE ON `documents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_collaborators_insert` BEFORE INSERT ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_collaborators_update` BEFORE UPDATE ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_collaborators_delete` BEFORE DELETE ON `document_collaborators`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_tables_insert` BEFORE INSERT ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_tables_update` BEFORE UPDATE ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_tables_delete` BEFORE DELETE ON `tables`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_columns_insert` BEFORE INSERT ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_columns_update` BEFORE UPDATE ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_columns_delete` BEFORE DELETE ON `columns`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_rows_insert` BEFORE INSERT ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_rows_update` BEFORE UPDATE ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_rows_delete` BEFORE DELETE ON `rows`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_cells_insert` BEFORE INSERT ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_cells_update` BEFORE UPDATE ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_cells_delete` BEFORE DELETE ON `cells`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_table_references_insert` BEFORE INSERT ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_table_references_update` BEFORE UPDATE ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_table_references_delete` BEFORE DELETE ON `table_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_clause_references_insert` BEFORE INSERT ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_clause_references_update` BEFORE UPDATE ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_clause_references_delete` BEFORE DELETE ON `clause_references`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_contents_insert` BEFORE INSERT ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_contents_update` BEFORE UPDATE ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_contents_delete` BEFORE DELETE ON `document_contents`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_settings_insert` BEFORE INSERT ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_settings_update` BEFORE UPDATE ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_document_settings_delete` BEFORE DELETE ON `document_settings`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_docx_versions_insert` BEFORE INSERT ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_docx_versions_update` BEFORE UPDATE ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_docx_versions_delete` BEFORE DELETE ON `docx_versions`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_audio_media_insert` BEFORE INSERT ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_audio_media_update` BEFORE UPDATE ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_audio_media_delete` BEFORE DELETE ON `audio_media`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_snapshots_insert` BEFORE INSERT ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_snapshots_update` BEFORE UPDATE ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_snapshots_delete` BEFORE DELETE ON `snapshots`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automations_insert` BEFORE INSERT ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.workspace_id) = 28 AND substr(NEW.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automations_update` BEFORE UPDATE ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automations_delete` BEFORE DELETE ON `automations`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.workspace_id) = 28 AND substr(OLD.workspace_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.workspace_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_event_triggers_insert` BEFORE INSERT ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_event_triggers_update` BEFORE UPDATE ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_event_triggers_delete` BEFORE DELETE ON `automation_event_triggers`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_runs_insert` BEFORE INSERT ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_runs_update` BEFORE UPDATE ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_runs_delete` BEFORE DELETE ON `automation_runs`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_deliveries_insert` BEFORE INSERT ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.automation_id) = 28 AND substr(NEW.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.automation_id) = 28 AND substr(NEW.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.automation_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_deliveries_update` BEFORE UPDATE ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_deliveries_delete` BEFORE DELETE ON `automation_deliveries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.automation_id) = 28 AND substr(OLD.automation_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.automation_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_cascades_insert` BEFORE INSERT ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_cascades_update` BEFORE UPDATE ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_cascades_delete` BEFORE DELETE ON `automation_cascades`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_project_days_insert` BEFORE INSERT ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_project_days_update` BEFORE UPDATE ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_automation_project_days_delete` BEFORE DELETE ON `automation_project_days`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_published_entries_insert` BEFORE INSERT ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.project_id) = 28 AND substr(NEW.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_published_entries_update` BEFORE UPDATE ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_published_entries_delete` BEFORE DELETE ON `published_entries`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.project_id) = 28 AND substr(OLD.project_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.project_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_collab_rooms_insert` BEFORE INSERT ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(NEW.document_id) = 28 AND substr(NEW.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(NEW.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_collab_rooms_update` BEFORE UPDATE ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;--> statement-breakpoint
CREATE TRIGGER `fence_collab_rooms_delete` BEFORE DELETE ON `collab_rooms`
WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ((length(OLD.document_id) = 28 AND substr(OLD.document_id, 27, 2) = substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical / 32 + 1, 1) || substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', f.logical % 32 + 1, 1)) OR (length(OLD.document_id) = 26 AND f.logical = 0));
END;
