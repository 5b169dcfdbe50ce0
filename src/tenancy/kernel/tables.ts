/**
 * The one declaration of the shard tables (docs/scaling.md "Logical shards"): each table of a shard database that
 * holds an organization's rows, with the column whose id names the row's logical shard. Everything that treats
 * shard tables alike is derived from this: the move's copy and delete (./shardKeys.ts, ./shardRows.ts), and the
 * fence's triggers, which `npm run db:generate` writes into a shard migration from fenceTriggers() below whenever
 * they differ from what the migrations hold (scripts/lib/fence-triggers.mjs). Adding a shard table is one line here.
 *
 * Imports nothing, so the Node scripts read it as it is.
 */

/**
 * For each shard table, a column holding an organization-scoped id (its last two characters name the logical
 * shard, src/lib/ids.ts). Any such column of a row names the same shard, since everything of an organization is
 * issued on the organization's shard; the one chosen is always set (NOT NULL) and indexed where one is.
 */
export const SHARD_KEY_COLUMNS = {
  organizations: "id",
  organization_members: "organization_id",
  member_invitations: "organization_id",
  invitations: "document_id",
  workspaces: "id",
  workspace_collaborators: "workspace_id",
  projects: "workspace_id",
  documents: "workspace_id",
  document_collaborators: "document_id",
  tables: "workspace_id",
  columns: "workspace_id",
  rows: "workspace_id",
  cells: "workspace_id",
  table_references: "workspace_id",
  table_views: "workspace_id",
  clause_references: "workspace_id",
  document_contents: "document_id",
  document_settings: "document_id",
  docx_versions: "document_id",
  audio_media: "workspace_id",
  snapshots: "document_id",
  automations: "workspace_id",
  automation_event_triggers: "project_id",
  automation_remote_triggers: "project_id",
  automation_runs: "project_id",
  automation_deliveries: "automation_id",
  automation_cascades: "project_id",
  automation_project_days: "project_id",
  published_entries: "project_id",
  collab_rooms: "document_id",
  notification_outbox: "id",
  comments: "workspace_id",
  comment_reactions: "comment_id",
  change_log: "workspace_id",
} as const;

export type ShardTable = keyof typeof SHARD_KEY_COLUMNS;

const CROCKFORD = "'0123456789ABCDEFGHJKMNPQRSTVWXYZ'";

/**
 * SQL true when the id in `column` (e.g. `NEW.id`) names the logical shard `f.logical` of a fence row `f`: its last
 * two characters are that shard's two base-32 digits (src/lib/ids.ts).
 */
export function namesFencedShard(column: string): string {
  return `length(${column}) = 28 AND substr(${column}, 27, 2) = substr(${CROCKFORD}, f.logical / 32 + 1, 1) || substr(${CROCKFORD}, f.logical % 32 + 1, 1)`;
}

/**
 * The fence's triggers of one shard table, by name: an insert, update or delete of a row whose logical shard is
 * fenced `moved` or `read-only` in this database is refused (the request answers 503), unless the move itself is
 * writing (a `shard_mover` row exists only inside its batches). Quick when nothing is fenced: the WHEN clause.
 */
export function fenceTriggers(table: string, column: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [op, row] of [
    ["insert", "NEW"],
    ["update", "OLD"],
    ["delete", "OLD"],
  ] as const) {
    const name = `fence_${table}_${op}`;
    const key = namesFencedShard(`${row}.${column}`);
    out.set(
      name,
      [
        `CREATE TRIGGER \`${name}\` BEFORE ${op.toUpperCase()} ON \`${table}\``,
        `WHEN EXISTS (SELECT 1 FROM shard_fence WHERE state <> 'active') AND NOT EXISTS (SELECT 1 FROM shard_mover) BEGIN`,
        `  SELECT RAISE(ABORT, 'shard_fence: moved') FROM shard_fence f WHERE f.state = 'moved' AND ${key};`,
        `  SELECT RAISE(ABORT, 'shard_fence: read-only') FROM shard_fence f WHERE f.state = 'read-only' AND ${key};`,
        `END;`,
      ].join("\n"),
    );
  }
  return out;
}

/** Every fence trigger the shard tables need, by name. */
export function allFenceTriggers(): Map<string, string> {
  const out = new Map<string, string>();
  for (const [table, column] of Object.entries(SHARD_KEY_COLUMNS))
    for (const [name, sql] of fenceTriggers(table, column)) out.set(name, sql);
  return out;
}
