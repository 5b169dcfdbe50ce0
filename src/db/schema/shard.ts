// The shard databases' tables (bindings SHARD_0 … SHARD_n once the service is sharded; docs/scaling.md "Plan", step
// 1): everything inside an organization. drizzle.shard.config.ts generates their migrations from this file. Not yet
// wired: the live schema is still src/db/schema/index.ts, one database.
export { workspaces, workspaceCollaborators, projects } from "./workspaces";
export { documents, documentCollaborators } from "./documents";
export { tables, columns, rows, cells, tableReferences, clauseReferences } from "./tables";
export { documentContents, documentSettings, docxVersions, audioMedia, snapshots } from "./content";
export {
  automations,
  automationEventTriggers,
  automationRuns,
  automationDeliveries,
  automationCascades,
  automationProjectDays,
} from "./automations";
export { publishedEntries } from "./portals";
export { collabRooms } from "./collab";
// Not organization data: each shard database's own record of the logical shards moving through it (never copied).
export { shardFence } from "./fence";
