// The shard databases' tables (bindings SHARD_0 … SHARD_n; docs/scaling.md "Directory and shards"): everything
// inside an organization, the organization itself and its members and invitations included. drizzle.shard.config.ts
// generates their migrations from this file.
export { organizations, organizationMembers, memberInvitations } from "./identity";
export { invitations } from "./documents";
export { workspaces, workspaceCollaborators, projects } from "./workspaces";
export { documents, documentCollaborators } from "./documents";
export { tables, columns, rows, cells, tableReferences, clauseReferences } from "./tables";
export { tableViews } from "./views";
export { documentContents, documentSettings, docxVersions, audioMedia, snapshots } from "./content";
export {
  automations,
  automationEventTriggers,
  automationRemoteTriggers,
  automationRuns,
  automationDeliveries,
  automationCascades,
  automationProjectDays,
  automationLogCursors,
} from "./automations";
export { publishedEntries } from "./portals";
export { collabRooms } from "./collab";
export { notificationOutbox } from "./outbox";
export { comments, commentReactions } from "./comments";
export { changeLog, changeLogStaged } from "./changes";
export { webhookSubscriptions, webhookSubscriptionDeliveries } from "./webhooks";
export { auditLog } from "./audit";
// Not organization data: each shard database's own record of the logical shards moving through it (never copied).
export { shardFence } from "./fence";
