// A shard move in steps (docs/scaling.md "Moving a logical shard", "A move in steps"): the same move as
// moveLogicalShard (./shardMove.ts) — fences, copy, verification, switch — cut into steps of a bounded number of D1
// calls, so that a shard of any size moves through calls that each stay within one Worker invocation's 1,000 D1
// calls. Between steps the move's position is a MoveState (the route hands it to the command as an opaque cursor,
// src/tenancy/operations/moves.ts). The source stays read-only from the first step to the switch (its fence), so the pages
// a later step reads are the pages an earlier step copied.
//
// Verification cannot carry one running SHA-256 across invocations, so it goes page by page in lockstep: a page of
// the source after key K (its last key L), the target's rows with keys in (K, L] (after K, on the source's last page),
// their counts and SHA-256 over their quote()d values compared. Any difference stops the move: the source takes writes
// again at once, and the copy stays fenced off in the target for abortMoveWithin to delete in steps of its own.
// The units of work of each phase (a page copied, a page verified, …) are in ./shardMoveUnits.ts.
import { readFence, setFenceStatement, type Fence, type FenceState } from "../../kernel/fence";
import { DEFAULT_BATCH_ROWS, deleteShardRowsWithin, moveShapes, shardDeleteOrder, type TableShape } from "./rows";
import { holdsRows, recordedState, ShardMoveError, type MoveOptions } from "./engine";
import { UNITS } from "./units";
import { isLogicalShard } from "../../kernel/map";

/** A key value as the cursor carries it (a primary key's columns, or a rowid). */
export type KeyValue = string | number | null;

export type MovePhase = "clean" | "referenced" | "copy" | "clear-search" | "verify" | "switch";

/** Where a move in steps stands between two calls. */
export interface MoveState {
  logical: number;
  from: string;
  to: string;
  phase: MovePhase;
  /** The table the phase is at: an index into stepShapes() (into shardDeleteOrder() for "clean"). */
  table: number;
  /** The last key done in that table (copy, verify), or [the last rowid deleted] (clean, clear-search); null at its start. */
  after: KeyValue[] | null;
  /** Rows copied, and rows verified, per table of stepShapes(). */
  copied: number[];
  verified: number[];
  /** Date.now() when the source's fence went up (the start of the read-only time). */
  since: number;
}

/** A move's options (./shardMove.ts), and the D1 calls this step may make, at most (about: the fixed checks of a call count a few). */
export type StepOptions = Pick<
  MoveOptions,
  "from" | "to" | "logical" | "fromName" | "toName" | "batchRows" | "onCopied" | "switchMap"
> & { maxCalls: number };

export type StepResult =
  | { done: false; state: MoveState }
  | { done: true; state: MoveState; rows: Record<string, number>; readOnlyMs: number };

/** The shard tables in copy order, then the search entries: what is copied and verified, in that order. */
export function stepShapes(): TableShape[] {
  const { tables, search } = moveShapes();
  return [...tables, search];
}

/** Whether `state` is a position a move of these shapes can be at (a cursor that came back from a client). */
export function isPlausibleState(state: MoveState): boolean {
  const n = stepShapes().length;
  const limit = state.phase === "clean" ? shardDeleteOrder().length : n;
  const keyWidth =
    state.phase === "clean" || state.phase === "clear-search" || state.phase === "referenced"
      ? 1
      : (stepShapes()[state.table]?.order.length ?? 0);
  return (
    isLogicalShard(state.logical) &&
    state.table >= 0 &&
    state.table < limit &&
    (state.after === null || state.after.length === keyWidth) &&
    (state.phase !== "clear-search" || state.table === n - 1) &&
    (state.after === null || state.phase !== "switch") &&
    state.copied.length === n &&
    state.verified.length === n
  );
}

/**
 * Starts a move in steps (no state) or carries one on (the state a previous step returned), making at most about
 * `maxCalls` D1 calls. Throws ShardMoveError when the move cannot start or go on (nothing changed then), or when its
 * copy does not verify: then the source is `active` again and the target's copy stays fenced `moved` → the source, for
 * abortMoveWithin (or the next move to that target) to delete in steps.
 */
export async function moveLogicalShardStep(opts: StepOptions, previous: MoveState | null): Promise<StepResult> {
  const { from, to, logical, fromName, toName } = opts;
  const pageRows = opts.batchRows ?? 500;
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  if (from === to || fromName === toName) throw new Error("a move needs two different databases");
  if (!Number.isInteger(pageRows) || pageRows < 1)
    throw new RangeError(`batchRows must be a positive integer: ${pageRows}`);
  const shapes = stepShapes();
  const [sourceFence, targetFence] = await Promise.all([readFence(from, logical), readFence(to, logical)]);
  const opened = previous
    ? { state: resumedState(opts, previous, sourceFence, targetFence), used: 2 }
    : await startMove(opts, shapes, sourceFence, targetFence);
  const { state } = opened;
  let used = opened.used;

  const abandon = async () => {
    // The source is writable again first; the target's copy stays, fenced `moved` → the source, so no read counts it
    // and no write reaches it. Deleting it here could take more D1 calls than this step has (a copy of hundreds of
    // thousands of rows), so it goes in steps of its own: abortMoveWithin, called until done (the abort route, which
    // the command calls after a refusal), or the next move of the shard to this target, whose first steps clean it.
    await from.batch([setFenceStatement(from, logical, "active")]);
    await to.batch([setFenceStatement(to, logical, "moved", fromName)]);
  };

  try {
    // Each unit of work below costs two D1 calls at most, a page of referenced users and the switch three, and a
    // unit that fails (a page that differs) is followed by the abandon's two: room for four is left before each.
    while (used + 4 <= opts.maxCalls || used <= 5) {
      if (state.phase === "switch") return await switchFences(opts, state, shapes);
      used += await UNITS[state.phase]({ opts, state, shapes, pageRows });
    }
  } catch (error) {
    if (state.phase !== "switch") await abandon();
    throw error;
  }
  return { done: false, state };
}

/** The position a cursor carries a move on from, once the fences show it still under way (else ShardMoveError). */
function resumedState(opts: StepOptions, previous: MoveState, sourceFence: Fence, targetFence: Fence): MoveState {
  const { logical, fromName, toName } = opts;
  if (previous.logical !== logical || previous.from !== fromName || previous.to !== toName) {
    throw new ShardMoveError(
      `the cursor belongs to a move of logical shard ${previous.logical} from ${previous.from} to ${previous.to}`,
    );
  }
  const targetOk =
    (targetFence.state === "moved" && targetFence.movedTo === fromName) ||
    (targetFence.state === "active" && (previous.phase === "verify" || previous.phase === "switch"));
  if (sourceFence.state !== "read-only" || !targetOk) {
    throw new ShardMoveError(
      `the move of logical shard ${logical} to ${toName} this cursor continues is no longer under way (start it again without a cursor)`,
    );
  }
  return structuredClone(previous);
}

/**
 * A new move's first position, and the D1 calls it took (the two fence reads included): the fences go up (the
 * source `read-only`, the target `moved` → the source) and the move starts by cleaning the target; or, when an
 * earlier run stopped inside the switch, it verifies again. ShardMoveError, nothing changed, when it cannot start.
 */
async function startMove(
  opts: StepOptions,
  shapes: TableShape[],
  sourceFence: Fence,
  targetFence: Fence,
): Promise<{ state: MoveState; used: number }> {
  const { from, to, logical, fromName, toName } = opts;
  if (sourceFence.state === "moved")
    throw new ShardMoveError(`logical shard ${logical} already left ${fromName} for ${sourceFence.movedTo}`);
  if (targetFence.state === "read-only")
    throw new ShardMoveError(`logical shard ${logical} is being moved out of ${toName}`);
  const at = (phase: MovePhase): MoveState => {
    const zero = shapes.map(() => 0);
    return {
      logical,
      from: fromName,
      to: toName,
      phase,
      table: 0,
      after: null,
      copied: [...zero],
      verified: [...zero],
      since: Date.now(),
    };
  };
  if (sourceFence.state === "read-only" && (await recordedState(to, logical)) === "active") {
    // An earlier run stopped inside the switch: the target went active after its copy was verified and the source
    // never left read-only. Verify again and finish.
    return { state: at("verify"), used: 3 };
  }
  if (targetFence.state === "active" && (await holdsRows(to, logical))) {
    throw new ShardMoveError(
      `${toName} serves logical shard ${logical} already (its fence is active and it holds rows)`,
    );
  }
  await from.batch([setFenceStatement(from, logical, "read-only")]);
  await to.batch([setFenceStatement(to, logical, "moved", fromName)]);
  return { state: at("clean"), used: 6 };
}

/** The switch (three D1 calls): the target serves, the map switches, the source's fence says where the shard went. */
async function switchFences(opts: StepOptions, state: MoveState, shapes: TableShape[]): Promise<StepResult> {
  const { from, to, logical, toName } = opts;
  await to.batch([setFenceStatement(to, logical, "active")]);
  await opts.switchMap?.();
  // Writes wait no longer once the map has switched: the read-only time ends here.
  const readOnlyMs = Math.max(0, Date.now() - state.since);
  await from.batch([setFenceStatement(from, logical, "moved", toName)]);
  return {
    done: true,
    state,
    rows: Object.fromEntries(shapes.map((s, i) => [s.name, state.verified[i]!])),
    readOnlyMs,
  };
}

/**
 * Where a stopped move of `logical` out of `fromName` (the database serving it) left its copy, found from the fences
 * of the other databases (one D1 call each, in parallel): the one whose fence says `moved` → `fromName` — or, while the
 * move is still under way (`underWay`), `active` on a row of its own, as a move interrupted inside its switch leaves
 * it — written last. A move fences its target when it starts and again when it stops, after any finished move whose
 * old copy may still be waiting for its drop, so the newest such fence is the latest move's. Null when there is none.
 */
export async function findStoppedMoveTarget(
  others: Record<string, D1Database>,
  logical: number,
  fromName: string,
  underWay: boolean,
): Promise<string | null> {
  const fences = await Promise.all(
    Object.entries(others).map(async ([name, db]) => {
      const row = await db
        .prepare(`SELECT state, moved_to, updated_at FROM shard_fence WHERE logical = ?1`)
        .bind(logical)
        .first<{ state: FenceState; moved_to: string | null; updated_at: number }>();
      return { name, row };
    }),
  );
  const candidates = fences.filter(
    ({ row }) => row && ((row.state === "moved" && row.moved_to === fromName) || (underWay && row.state === "active")),
  );
  candidates.sort((a, b) => b.row!.updated_at - a.row!.updated_at);
  return candidates[0]?.name ?? null;
}

/**
 * Stops a move of `logical` from `from` to `to` and deletes, within about `maxCalls` D1 calls, the copy it left in `to`
 * (docs/scaling.md "A move in steps"): `done` once none of the shard's rows is left there; the caller repeats it with
 * the same arguments until then, so a copy too large for one invocation's D1 calls goes over several.
 *
 * A move still under way (the source's fence `read-only`) is stopped first: the target's fence goes to `moved` → the
 * source (if it said anything else — a move interrupted inside its switch left it `active`), then the source's to
 * `active`, so the shard is writable again and at no moment do two databases serve it; `stopped` says so. A move that
 * stopped already (a differing page, an abort before) needs neither write. Throws ShardMoveError, having changed
 * nothing, when `from` does not serve the shard, or when `to`'s fence shows no move from `from` to it.
 */
export async function abortMoveWithin(opts: {
  from: D1Database;
  to: D1Database;
  logical: number;
  fromName: string;
  toName: string;
  maxCalls: number;
  batchRows?: number;
}): Promise<{ stopped: boolean; deleted: number; done: boolean }> {
  const { from, to, logical, fromName, toName } = opts;
  if (!isLogicalShard(logical)) throw new RangeError(`not a logical shard: ${logical}`);
  if (from === to || fromName === toName) throw new Error("a move needs two different databases");
  const [sourceFence, targetFence] = await Promise.all([readFence(from, logical), readFence(to, logical)]);
  let used = 2;
  if (sourceFence.state === "moved")
    throw new ShardMoveError(
      `logical shard ${logical} left ${fromName} for ${sourceFence.movedTo}: ${fromName} does not serve it`,
    );
  const underWay = sourceFence.state === "read-only";
  const fencedOff = targetFence.state === "moved" && targetFence.movedTo === fromName;
  if (targetFence.state === "read-only" || (!underWay && !fencedOff)) {
    throw new ShardMoveError(
      `${toName} holds no copy of logical shard ${logical} left by a move from ${fromName} (its fence there is ${targetFence.state}${targetFence.movedTo ? ` → ${targetFence.movedTo}` : ""})`,
    );
  }
  if (underWay) {
    if (!fencedOff) {
      await to.batch([setFenceStatement(to, logical, "moved", fromName)]);
      used++;
    }
    await from.batch([setFenceStatement(from, logical, "active")]);
    used++;
  }
  // The copy is fenced off for good now: deleting it may take as many calls as it needs.
  const { deleted, done } = await deleteShardRowsWithin(
    to,
    logical,
    opts.batchRows ?? DEFAULT_BATCH_ROWS,
    Math.max(2, opts.maxCalls - used),
  );
  return { stopped: underWay, deleted, done };
}
