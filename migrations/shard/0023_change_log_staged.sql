CREATE TABLE `change_log_staged` (
	`id` text PRIMARY KEY NOT NULL,
	`seq_start` integer NOT NULL,
	`seq_end` integer NOT NULL,
	`at` integer NOT NULL,
	`kind` text NOT NULL,
	`organization_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`project_id` text,
	`table_id` text,
	`actor` text NOT NULL,
	`source` text NOT NULL,
	`cells` text NOT NULL
);
--> statement-breakpoint
-- Written by hand (src/db/schema/changes.ts, changeLogStaged): deleting a staged row folds it into change_log,
-- numbered from the row's reserved seq_start, in the order of the write: for `row.updated`, one entry per row whose
-- stored values change (its cells with their before values); for `row.created`, the entries as the write built them
-- (`[rowId, changes]`). A shard move's own deletes (a shard_mover row exists inside its batches) fold nothing: the
-- rows were copied to the new database, which folds them there.
CREATE TRIGGER `change_log_staged_fold` AFTER DELETE ON `change_log_staged`
WHEN NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN
  INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, changes)
  SELECT OLD.seq_start + row_number() OVER (ORDER BY min(c.k)), c.row_id, OLD.at, OLD.kind, OLD.organization_id,
    OLD.workspace_id, OLD.project_id, OLD.table_id, OLD.actor, OLD.source,
    json_group_object(c.column_id, json_object('before', json(c.before), 'after', json(c.after)))
  FROM (
    SELECT j.key AS k, j.value ->> 1 AS row_id, j.value ->> 2 AS column_id, j.value ->> 5 AS before,
      CASE WHEN j.value ->> 4 IS NULL THEN NULL ELSE j.value -> 4 END AS after
    FROM json_each(OLD.cells) j
  ) c
  WHERE OLD.kind = 'row.updated' AND c.before IS NOT c.after
  GROUP BY c.row_id;
  INSERT INTO change_log (seq, record_id, at, kind, organization_id, workspace_id, project_id, table_id, actor, source, changes)
  SELECT OLD.seq_start + j.key + 1, j.value ->> 0, OLD.at, OLD.kind, OLD.organization_id, OLD.workspace_id,
    OLD.project_id, OLD.table_id, OLD.actor, OLD.source, j.value -> 1
  FROM json_each(OLD.cells) j
  WHERE OLD.kind = 'row.created';
END;
