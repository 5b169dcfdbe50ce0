/**
 * Moving a logical shard to another shard database while the service runs (docs/scaling.md "Moving a logical
 * shard"): the operator's `npm run shard:move -- <logical> <binding>` calls POST /admin/shards/move, then, after a
 * grace period, POST /admin/shards/drop. The copy, its verification and the fences are src/tenancy/operations/move/engine.ts's; this
 * adds what only the Worker knows: which database serves the shard now (the deployment's map and the moves recorded
 * since, src/tenancy/kernel/placements.ts) and the switch of the directory's placement, which every Worker learns on its next
 * authenticated request.
 */
import { createDb } from "../../db/client";
import { recordPlacementStatement, refreshPlacements, servingBindingOf } from "../kernel/placements";
import { dropMovedCopyWithin, ShardMoveError } from "./move/engine";
import { shardDeleteOrder } from "./move/rows";
import { readFence, setFenceStatement } from "../kernel/fence";
import {
  abortMoveWithin,
  findStoppedMoveTarget,
  isPlausibleState,
  moveLogicalShardStep,
  stepShapes,
  type MovePhase,
  type MoveState,
} from "./move/steps";
import { textFromBase64Url, textToBase64Url } from "../../lib/base64";
import { z } from "zod";
import { shardBindings, type ShardBinding } from "../kernel/map";
import type { Env } from "../../env";
import { ApiError, conflict, validation } from "../../errors";

export { LOGICAL_SHARDS } from "../kernel/map";

export interface ShardMoveSummary {
  logical: number;
  from: ShardBinding;
  to: ShardBinding;
  /** Rows copied per table (the search entries included), each verified by count and checksum in both databases. */
  rows: Record<string, number>;
  /** Milliseconds the shard was read-only: from the start of the move (its fence goes up first) to the switch. */
  readOnlyMs: number;
}

function bindingNamed(env: Env, name: string, field: "to" | "from"): ShardBinding {
  const binding = (shardBindings() as string[]).includes(name) ? (name as ShardBinding) : null;
  if (!binding || !env[binding]) {
    throw new ApiError(
      "ValidationError",
      `No shard database ${name}: this deployment has ${shardBindings().join(", ")}`,
      {
        details: [{ path: field, message: "not a shard database binding" }],
      },
    );
  }
  return binding;
}

/** The binding serving `logical` according to the directory (the map this isolate knows, brought up to date first). */
async function servingNow(env: Env, logical: number): Promise<ShardBinding> {
  await refreshPlacements(createDb(env.DB));
  return servingBindingOf(logical);
}

/** One step's D1 calls unless the caller names fewer or more: well under the 1,000 of one Worker invocation. */
export const DEFAULT_STEP_CALLS = 400;
export const MAX_STEP_CALLS = 900;
export const MIN_STEP_CALLS = 10;
export const MAX_PAGE_ROWS = 500;

export interface ShardMoveProgress {
  phase: MovePhase;
  /** The table the move is at, and its place among the tables moved (the search entries last). */
  table: string;
  tableIndex: number;
  tables: number;
  /** Rows copied, and rows verified, so far (all tables). */
  rowsCopied: number;
  rowsVerified: number;
}

export type ShardMoveStep =
  { done: false; cursor: string; progress: ShardMoveProgress } | ({ done: true } & ShardMoveSummary);

const Key = z.union([z.string().max(200), z.number(), z.null()]);
/** A cursor as it comes back from the command: base64url of MoveState's JSON. */
const CursorState = z.strictObject({
  logical: z.number().int(),
  from: z.string().max(20),
  to: z.string().max(20),
  phase: z.enum(["clean", "referenced", "copy", "clear-search", "verify", "switch"]),
  table: z.number().int().min(0),
  after: z.array(Key).max(8).nullable(),
  copied: z.array(z.number().int().min(0)).max(64),
  verified: z.array(z.number().int().min(0)).max(64),
  since: z.number().int().min(0),
});

function encodeMoveCursor(state: MoveState): string {
  return textToBase64Url(JSON.stringify(state));
}

function decodeMoveCursor(cursor: string): MoveState {
  const bad = () =>
    validation("cursor is not a cursor this move returned", [{ path: "cursor", message: "invalid cursor" }]);
  let json: unknown;
  try {
    json = JSON.parse(textFromBase64Url(cursor) ?? "");
  } catch {
    throw bad();
  }
  const parsed = CursorState.safeParse(json);
  if (!parsed.success || !isPlausibleState(parsed.data)) throw bad();
  return parsed.data;
}

function progressOf(state: MoveState): ShardMoveProgress {
  const shapes = stepShapes();
  // While the target is cleaned, tables are walked children first; the progress names the table being cleaned.
  const table = (state.phase === "clean" ? shardDeleteOrder() : shapes)[state.table]!;
  const sum = (a: number[]) => a.reduce((x, n) => x + n, 0);
  return {
    phase: state.phase,
    table: table.name,
    tableIndex: state.table,
    tables: shapes.length,
    rowsCopied: sum(state.copied),
    rowsVerified: sum(state.verified),
  };
}

/**
 * One step of moving `logical` to the database `to`: without a cursor it starts the move (the source goes
 * read-only), with one it carries it on; each step makes at most about `maxCalls` D1 calls and answers the cursor of
 * the next, or, once the map switched, the summary. The old copy stays until dropOldShardCopy. A step whose page
 * differs answers 409 with the source writable again; what was copied stays fenced off in `to` until abortShardMove
 * deletes it, call after call.
 */
export async function moveShardStep(
  env: Env,
  input: { logical: number; to: string; cursor?: string | null; maxCalls?: number; pageRows?: number },
  opts: {
    /** The request's clock: when the placement switched, as recorded in the directory. */
    now: number;
    /** Called after each table is copied, while the shard is read-only (progress; the live-move test holds the copy here). */
    onCopied?: (table: string, rows: number) => void | Promise<void>;
  },
): Promise<ShardMoveStep> {
  const previous = input.cursor ? decodeMoveCursor(input.cursor) : null;
  const to = bindingNamed(env, input.to, "to");
  const from = await servingNow(env, input.logical);
  if (from === to) throw conflict(`Logical shard ${input.logical} is served by ${to} already`);
  try {
    const step = await moveLogicalShardStep(
      {
        from: env[from]!,
        to: env[to]!,
        logical: input.logical,
        fromName: from,
        toName: to,
        batchRows: input.pageRows,
        maxCalls: input.maxCalls ?? DEFAULT_STEP_CALLS,
        onCopied: opts.onCopied,
        switchMap: async () => {
          await env.DB.batch([recordPlacementStatement(env.DB, input.logical, to, opts.now)]);
          await refreshPlacements(createDb(env.DB));
        },
      },
      previous,
    );
    if (!step.done) return { done: false, cursor: encodeMoveCursor(step.state), progress: progressOf(step.state) };
    return { done: true, logical: input.logical, from, to, rows: step.rows, readOnlyMs: Math.round(step.readOnlyMs) };
  } catch (error) {
    if (error instanceof ShardMoveError) throw conflict(error.message);
    throw error;
  }
}

/**
 * Moves `logical` to the database `to` in one call (the steps of moveShardStep, one after another): read-only while it
 * copies, then switched. A copy that does not verify throws as a step does, its copy left fenced off for abortShardMove.
 */
export async function moveShard(
  env: Env,
  input: { logical: number; to: string; maxCalls?: number; pageRows?: number },
  opts: {
    now: number;
    onCopied?: (table: string, rows: number) => void | Promise<void>;
    onStep?: (progress: ShardMoveProgress) => void;
  },
): Promise<ShardMoveSummary> {
  let cursor: string | null = null;
  for (;;) {
    const step: ShardMoveStep = await moveShardStep(
      env,
      { ...input, maxCalls: input.maxCalls ?? Number.MAX_SAFE_INTEGER, cursor },
      opts,
    );
    if (step.done) {
      const { done: _, ...summary } = step;
      return summary;
    }
    opts.onStep?.(step.progress);
    cursor = step.cursor;
  }
}

/**
 * Deletes the copy a finished move left in `from` (refused unless that database's fence says the shard moved), at
 * most about `maxCalls` D1 calls per call: `done` false asks the caller to call again (the command loops).
 */
export async function dropOldShardCopy(
  env: Env,
  input: { logical: number; from: string; maxCalls?: number },
): Promise<{ logical: number; from: ShardBinding; rows: number; done: boolean }> {
  const from = bindingNamed(env, input.from, "from");
  if ((await servingNow(env, input.logical)) === from)
    throw conflict(`Logical shard ${input.logical} is served by ${from}: it has no old copy there`);
  try {
    const { deleted, done } = await dropMovedCopyWithin({
      db: env[from]!,
      logical: input.logical,
      maxCalls: input.maxCalls ?? DEFAULT_STEP_CALLS,
    });
    return { logical: input.logical, from, rows: deleted, done };
  } catch (error) {
    if (error instanceof ShardMoveError) throw conflict(error.message);
    throw error;
  }
}

/**
 * Stops a move of `logical` and deletes what it copied, in steps (docs/scaling.md "A move in steps"): for a move under
 * way whose command was interrupted or that the operator gives up (`npm run shard:move -- <shard> --abort`), and for the
 * copy a move leaves behind when a page differs (the move answered 409; its command calls this next). A move under
 * way is stopped first: the database serving the shard (`from`) takes writes again at once and the move's cursor is
 * refused from then on; its target's copy is fenced `moved` → `from` there, so no read counts it and no write reaches
 * it. Then that copy is deleted within about `maxCalls` D1 calls: `done: false` asks for another call with the same
 * `to` (the command repeats it). Without `to`, the target is found from the databases' fences (findStoppedMoveTarget,
 * one D1 call per database). 409 when no move of the shard is under way and no stopped move left a copy to delete; a
 * move whose map has switched is finished, not stopped.
 */
export async function abortShardMove(
  env: Env,
  input: { logical: number; to?: string; maxCalls?: number },
): Promise<{
  logical: number;
  from: ShardBinding;
  to: ShardBinding | null;
  stopped: boolean;
  rows: number;
  done: boolean;
}> {
  const from = await servingNow(env, input.logical);
  const maxCalls = input.maxCalls ?? DEFAULT_STEP_CALLS;
  let used = 0;
  let to: ShardBinding | null;
  if (input.to !== undefined) {
    to = bindingNamed(env, input.to, "to");
    if (to === from)
      throw conflict(`Logical shard ${input.logical} is served by ${to}: it holds no stopped move's copy there`);
  } else {
    const fence = await readFence(env[from]!, input.logical);
    const others = Object.fromEntries(
      shardBindings()
        .filter((b) => b !== from && env[b])
        .map((b) => [b, env[b]!]),
    );
    used += 1 + Object.keys(others).length;
    to = (await findStoppedMoveTarget(others, input.logical, from, fence.state === "read-only")) as ShardBinding | null;
    if (!to) {
      // A move under way whose target never got its fence (it stopped inside its first step): only the source to reopen.
      if (fence.state !== "read-only")
        throw conflict(
          `No move of logical shard ${input.logical} is under way (its fence in ${from} is ${fence.state}), and none left a copy to delete`,
        );
      await env[from]!.batch([setFenceStatement(env[from]!, input.logical, "active")]);
      return { logical: input.logical, from, to: null, stopped: true, rows: 0, done: true };
    }
  }
  try {
    const { stopped, deleted, done } = await abortMoveWithin({
      from: env[from]!,
      to: env[to]!,
      logical: input.logical,
      fromName: from,
      toName: to,
      // Room for the fences and at least one chunk, even after a search of many databases (which only a call without `to` makes).
      maxCalls: Math.max(4, maxCalls - used),
    });
    // Found, not named, and nothing there: a move stopped and cleaned up before; nothing to do.
    if (input.to === undefined && !stopped && deleted === 0 && done) {
      throw new ShardMoveError(
        `No move of logical shard ${input.logical} is under way, and none left a copy to delete (the last one's, in ${to}, is gone)`,
      );
    }
    return { logical: input.logical, from, to, stopped, rows: deleted, done };
  } catch (error) {
    if (error instanceof ShardMoveError) throw conflict(error.message);
    throw error;
  }
}
