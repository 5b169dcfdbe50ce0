// Where a context's queries go (docs/architecture.md "Tenancy"): the logical shard an id names, whose database is
// looked up every time it is used (SHARD_MAP and the moves this isolate has learned since, ./placements), so a
// context follows a move learned while its request runs; or one fixed database (the directory, or one shard
// database for work that visits them all). The context (src/services/context.ts) is built over these.
import type { DatabaseBinding } from "../../env";
import { logicalShardOfId, shardBindingForId } from "./ids";
import { shardBindings } from "./map";
import { servingBindingOf } from "./placements";

/** A logical shard (its database followed through the placements) or one fixed database. */
export type Where = { readonly logical: number } | { readonly binding: DatabaseBinding };

/** The directory database: users, tokens, the indexes across organizations. */
export const DIRECTORY: Where = { binding: "DB" };

/**
 * Where the record `id` is: its logical shard; for an id that names none, the first shard database, where no
 * record has it, so the lookup finds nothing and answers as any absent record does (404).
 */
export function whereIs(id: string): Where {
  const logical = logicalShardOfId(id);
  return logical === null ? { binding: shardBindingForId(id) } : { logical };
}

/** The database `where` names now. */
export function bindingAt(where: Where): DatabaseBinding {
  return "logical" in where ? servingBindingOf(where.logical) : where.binding;
}

/** The logical shard `where` names, if any. */
export function logicalAt(where: Where): number | undefined {
  return "logical" in where ? where.logical : undefined;
}

/** Every shard database, each fixed (work about no one organization: registration, search, the upkeep). */
export function everyShardDatabase(): Where[] {
  return shardBindings().map((binding) => ({ binding }));
}

/** `items` grouped by the shard database each one's id is on now, for one statement per database. */
export function groupByDatabase<T>(items: Iterable<T>, idOf: (item: T) => string): [Where, T[]][] {
  const groups = new Map<DatabaseBinding, T[]>();
  for (const item of items) {
    const binding = shardBindingForId(idOf(item));
    const group = groups.get(binding);
    if (group) group.push(item);
    else groups.set(binding, [item]);
  }
  return [...groups].map(([binding, group]) => [{ binding }, group]);
}
