-- Written by hand: every project an event trigger watches gets its automation log cursor at its newest change-log
-- entry, where it has none yet. document.created and comment.created now start their runs from the log
-- (src/services/automations/logTriggers.ts); the bus already started the runs of the entries written before, and a
-- cursor made on a first read would place itself at the first trigger's creation and start them again.
INSERT INTO automation_log_cursors (project_id, cursor_seq, cursor_record_id, updated_at)
SELECT p.project_id,
  COALESCE((SELECT c.seq FROM change_log c WHERE c.project_id = p.project_id ORDER BY c.seq DESC, c.record_id DESC LIMIT 1), 0),
  COALESCE((SELECT c.record_id FROM change_log c WHERE c.project_id = p.project_id ORDER BY c.seq DESC, c.record_id DESC LIMIT 1), ''),
  0
FROM (SELECT project_id FROM automation_event_triggers UNION SELECT project_id FROM automation_remote_triggers) p
WHERE true
ON CONFLICT (project_id) DO NOTHING;
