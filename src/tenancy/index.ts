// The tenancy module's one public face (docs/architecture.md "Tenancy"). Outside src/tenancy, code imports this
// file only, and only the few files eslint.config.mjs names ("tenancy" restriction) do so; the services see
// tenancy through their context (src/services/context.ts: ctx.ids, ctx.on, ctx.everyShard, ctx.byShard).
//
// - kernel/: ids that carry their logical shard (ids.ts), the shard map (map.ts) and the moves learned since
//   (placements.ts), the fence (fence.ts), the shard tables' declaration (tables.ts) and keys (keys.ts), and where
//   a context's queries go (routing.ts).
// - operations/: moving a logical shard (moves.ts over move/), the directory indexes' repair (directoryIndex.ts)
//   and the Worker's upkeep (repairs.ts).

// Kernel: what the service context is built over.
export { groupByShard, idIssuer, logicalShardOfId, shardBindingForId, type IdIssuer } from "./kernel/ids";
export type { ShardBinding } from "./kernel/map";
export {
  bindingAt,
  DIRECTORY,
  everyShardDatabase,
  groupByDatabase,
  logicalAt,
  whereIs,
  type Where,
} from "./kernel/routing";
export { applyPlacements, learnFromFence, placementsQuery, type PlacementRow } from "./kernel/placements";
export { fenceRefusalOf, servedHere, servedHereSql, writableHereSql } from "./kernel/fence";

// Operations: the admin routes' shard moves and the Worker's upkeep.
export {
  abortShardMove,
  DEFAULT_STEP_CALLS,
  dropOldShardCopy,
  LOGICAL_SHARDS,
  MAX_PAGE_ROWS,
  MAX_STEP_CALLS,
  MIN_STEP_CALLS,
  moveShardStep,
} from "./operations/moves";
export { reconcileIndex, withClaim, type DirectoryIndex } from "./operations/directoryIndex";
export { startRepairs, type Repair } from "./operations/repairs";
