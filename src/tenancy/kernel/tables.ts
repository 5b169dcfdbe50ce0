/**
 * The one declaration of the shard tables (docs/architecture.md "Adding an organization-scoped resource"): each
 * table of a shard database that holds an organization's rows, with the column whose id names the row's logical
 * shard. Everything that treats shard tables alike is derived from this: the move's copy and delete (./keys.ts,
 * ../operations/move/), and the fence's triggers, which `npm run db:generate` writes into a shard migration from
 * fenceTriggers() below whenever they differ from what the migrations hold (scripts/lib/fence-triggers.mjs, which
 * loads this file through scripts/lib/ts-imports.mjs). Adding a shard table is one line here.
 */
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import * as t from "../../db/schema/shard";

/** A shard table: its drizzle table, its name, and the name of its key column. */
export interface ShardTableDeclaration<Name extends string = string> {
  table: SQLiteTable;
  name: Name;
  key: string;
}

/**
 * Declares `table` a shard table keyed by `keyColumn`, one of its own columns holding an organization-scoped id (its
 * last two characters name the logical shard, src/lib/ids.ts). Any such column of a row names the same shard, since
 * everything of an organization is issued on the organization's shard; the one chosen is always set (NOT NULL) and
 * indexed where one is.
 */
export function shardTable<T extends SQLiteTable>(
  table: T,
  keyColumn: T["_"]["columns"][keyof T["_"]["columns"]],
): ShardTableDeclaration<T["_"]["name"]> {
  return { table, name: getTableConfig(table).name as T["_"]["name"], key: keyColumn.name };
}

/** Every shard table, with its key column. */
export const SHARD_TABLES = [
  shardTable(t.organizations, t.organizations.id),
  shardTable(t.organizationMembers, t.organizationMembers.organizationId),
  shardTable(t.memberInvitations, t.memberInvitations.organizationId),
  shardTable(t.invitations, t.invitations.documentId),
  shardTable(t.workspaces, t.workspaces.id),
  shardTable(t.workspaceCollaborators, t.workspaceCollaborators.workspaceId),
  shardTable(t.projects, t.projects.workspaceId),
  shardTable(t.documents, t.documents.workspaceId),
  shardTable(t.documentCollaborators, t.documentCollaborators.documentId),
  shardTable(t.tables, t.tables.workspaceId),
  shardTable(t.columns, t.columns.workspaceId),
  shardTable(t.rows, t.rows.workspaceId),
  shardTable(t.cells, t.cells.workspaceId),
  shardTable(t.tableReferences, t.tableReferences.workspaceId),
  shardTable(t.tableViews, t.tableViews.workspaceId),
  shardTable(t.clauseReferences, t.clauseReferences.workspaceId),
  shardTable(t.documentContents, t.documentContents.documentId),
  shardTable(t.documentSettings, t.documentSettings.documentId),
  shardTable(t.docxVersions, t.docxVersions.documentId),
  shardTable(t.audioMedia, t.audioMedia.workspaceId),
  shardTable(t.snapshots, t.snapshots.documentId),
  shardTable(t.automations, t.automations.workspaceId),
  shardTable(t.automationEventTriggers, t.automationEventTriggers.projectId),
  shardTable(t.automationRemoteTriggers, t.automationRemoteTriggers.projectId),
  shardTable(t.automationRuns, t.automationRuns.projectId),
  shardTable(t.automationDeliveries, t.automationDeliveries.automationId),
  shardTable(t.automationCascades, t.automationCascades.projectId),
  shardTable(t.automationProjectDays, t.automationProjectDays.projectId),
  shardTable(t.automationLogCursors, t.automationLogCursors.projectId),
  shardTable(t.publishedEntries, t.publishedEntries.projectId),
  shardTable(t.collabRooms, t.collabRooms.documentId),
  shardTable(t.notificationOutbox, t.notificationOutbox.id),
  shardTable(t.comments, t.comments.workspaceId),
  shardTable(t.commentReactions, t.commentReactions.commentId),
  shardTable(t.changeLog, t.changeLog.workspaceId),
  shardTable(t.changeLogStaged, t.changeLogStaged.workspaceId),
  shardTable(t.webhookSubscriptions, t.webhookSubscriptions.projectId),
  shardTable(t.webhookSubscriptionDeliveries, t.webhookSubscriptionDeliveries.subscriptionId),
  shardTable(t.auditLog, t.auditLog.organizationId),
] as const;

export type ShardTable = (typeof SHARD_TABLES)[number]["name"];

const KEYS: ReadonlyMap<string, string> = new Map(SHARD_TABLES.map((d) => [d.name, d.key]));

/** The key column of the shard table `name`. */
export function shardKeyOf(name: ShardTable): string {
  return KEYS.get(name)!;
}

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
  for (const { name: table, key } of SHARD_TABLES)
    for (const [name, sql] of fenceTriggers(table, key)) out.set(name, sql);
  return out;
}
