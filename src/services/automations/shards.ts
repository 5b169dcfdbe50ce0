/**
 * The cross-organization automations' view of tenancy (docs/architecture.md "Tenancy"): an automation watches
 * projects that may live on other shard databases than its own, its runs and cascades land on theirs, and the
 * queue carries shard databases by binding. The one file of services/automations that imports the tenancy
 * module (eslint.config.mjs names it); the rest of the automations import from here or use their context.
 */
import { groupByShard, logicalShardOfId, shardBindingForId, type ShardBinding } from "../../tenancy";

export { groupByShard, type ShardBinding };

/** Whether a trigger watching `projectId` is kept as a pointer in that project's database (another logical shard than the automation's project). */
export function isRemoteProject(automationProjectId: string, projectId: string): boolean {
  return logicalShardOfId(projectId) !== logicalShardOfId(automationProjectId);
}

/** Whether `id` names a logical shard (an id that names none is no record's: no automation listens to it). */
export function namesLogicalShard(id: string): boolean {
  return logicalShardOfId(id) !== null;
}

/** The shard database holding the record `id` now (for an id naming no logical shard, where no record has it). */
export const bindingHolding: (id: string) => ShardBinding = shardBindingForId;
