// The units of work of a move in steps (docs/scaling.md "A move in steps"), one per phase but the switch: each makes
// a bounded number of D1 calls (two at most, a page of referenced users three), moves the step's position (its
// MoveState) on in place, and says how many calls it made. moveLogicalShardStep (./shardMoveSteps.ts) runs them while
// its budget of calls lasts, and switches the fences and the map once every page has verified.
//
// Verification goes page by page in lockstep: a page of the source after key K (its last key L), the target's rows
// with keys in (K, L] (after K, on the source's last page), their counts and SHA-256 over their quote()d values
// compared.
import { shardCondition } from "../../kernel/keys";
import { asMover, BEFORE_ANY_ROWID, deleteChunk, insertStatements, q, shardDeleteOrder, type TableShape } from "./rows";
import { sha256Hex } from "../../../lib/crypto";
import { ShardMoveError } from "./engine";
import { copyReferencedPage, copyReferencedRows } from "./referenced";
import type { KeyValue, MovePhase, MoveState, StepOptions } from "./steps";

/** What a unit of work reads and writes, and the position it moves on. */
export interface StepRun {
  opts: StepOptions;
  /** The step's position, changed in place by each unit. */
  state: MoveState;
  /** stepShapes(): the shard tables in copy order, then the search entries. */
  shapes: TableShape[];
  pageRows: number;
}

/** The unit of work of each phase but the switch: it moves `run.state` on in place and answers the D1 calls it made. */
export const UNITS: Record<Exclude<MovePhase, "switch">, (run: StepRun) => Promise<number>> = {
  clean: cleanUnit,
  referenced: referencedUnit,
  copy: copyUnit,
  "clear-search": clearSearchUnit,
  verify: verifyUnit,
};

/**
 * One page of `shape`'s rows on `logical` in key order, after `after` (if any) and up to `upTo` (inclusive, if any),
 * at most `limit` rows; each row's values (through `select`) and its key.
 */
async function readPage(
  db: D1Database,
  shape: TableShape,
  logical: number,
  after: KeyValue[] | null,
  limit: number,
  select: (c: string) => string,
  upTo: KeyValue[] | null = null,
): Promise<{ values: unknown[][]; last: KeyValue[] | null }> {
  const cond = shardCondition(shape.key, logical);
  const keys = shape.order.map(q).join(", ");
  const tuple = (k: KeyValue[]) => `(${k.map(() => "?").join(", ")})`;
  const where = [
    cond.sql,
    ...(after ? [`(${keys}) > ${tuple(after)}`] : []),
    ...(upTo ? [`(${keys}) <= ${tuple(upTo)}`] : []),
  ].join(" AND ");
  const rows = await db
    .prepare(
      `SELECT ${shape.columns.map(select).join(", ")}, ${keys} FROM ${q(shape.name)} WHERE ${where} ORDER BY ${keys} LIMIT ?`,
    )
    .bind(...cond.params, ...(after ?? []), ...(upTo ?? []), limit)
    .raw<unknown[]>();
  const width = shape.columns.length;
  const lastRow = rows[rows.length - 1];
  return { values: rows.map((r) => r.slice(0, width)), last: lastRow ? (lastRow.slice(width) as KeyValue[]) : null };
}

/** Deletes a chunk of what the target held of the shard, children first, so a move starts from a clean target. */
async function cleanUnit({ opts, state, pageRows }: StepRun): Promise<number> {
  const clean = shardDeleteOrder();
  const shape = clean[state.table]!;
  const { last } = await deleteChunk(
    opts.to,
    shape,
    opts.logical,
    (state.after?.[0] as number | undefined) ?? BEFORE_ANY_ROWID,
    pageRows,
  );
  if (last !== null) state.after = [last];
  else if (state.table + 1 < clean.length) Object.assign(state, { table: state.table + 1, after: null });
  else Object.assign(state, { phase: "referenced", table: 0, after: null });
  return 1;
}

/** The users the shard's rows name, a page per unit (three calls); whole where the schema does not allow pages. */
async function referencedUnit({ opts, state, pageRows }: StepRun): Promise<number> {
  const { from, to, logical } = opts;
  const page = await copyReferencedPage(from, to, logical, (state.after?.[0] as string | undefined) ?? null, pageRows);
  let used: number;
  if (page === null) {
    await copyReferencedRows(from, to, logical, pageRows);
    used = 3;
  } else used = page.calls;
  if (page?.last) state.after = [page.last];
  else Object.assign(state, { phase: "copy", table: 0, after: null });
  return used;
}

/** Copies a page of the table the state is at; the search entries replace what the target's triggers made. */
async function copyUnit({ opts, state, shapes, pageRows }: StepRun): Promise<number> {
  const { from, to, logical } = opts;
  const shape = shapes[state.table]!;
  const isSearch = state.table === shapes.length - 1;
  const page = await readPage(from, shape, logical, state.after, pageRows, q);
  let used = 1;
  if (page.values.length) {
    const conflict = isSearch
      ? `ON CONFLICT (record_id) DO UPDATE SET ${shape.columns
          .filter((c) => c !== "record_id")
          .map((c) => `${q(c)} = excluded.${q(c)}`)
          .join(", ")}`
      : "ON CONFLICT DO NOTHING";
    await asMover(to, insertStatements(to, shape.name, shape.columns, page.values, conflict));
    used++;
    state.copied[state.table]! += page.values.length;
    state.after = page.last;
  }
  if (page.values.length < pageRows) {
    await opts.onCopied?.(shape.name, state.copied[state.table]!);
    const next = state.table + 1;
    // Before the search entries: the target's triggers made entries for the copied rows, which the source's replace.
    if (next === shapes.length - 1) Object.assign(state, { phase: "clear-search", table: next, after: null });
    else if (next < shapes.length) Object.assign(state, { table: next, after: null });
    else Object.assign(state, { phase: "verify", table: 0, after: null });
  }
  return used;
}

/** Deletes a chunk of the target's trigger-made search entries, before the source's are copied. */
async function clearSearchUnit({ opts, state, shapes, pageRows }: StepRun): Promise<number> {
  const { last } = await deleteChunk(
    opts.to,
    shapes[state.table]!,
    opts.logical,
    (state.after?.[0] as number | undefined) ?? BEFORE_ANY_ROWID,
    pageRows,
  );
  if (last !== null) state.after = [last];
  else Object.assign(state, { phase: "copy", after: null });
  return 1;
}

/** Compares a page of the source with the target's rows in its key range; throws ShardMoveError on a difference. */
async function verifyUnit({ opts, state, shapes, pageRows }: StepRun): Promise<number> {
  const { from, to, logical } = opts;
  const shape = shapes[state.table]!;
  const quoted = (c: string) => `quote(${q(c)})`;
  const source = await readPage(from, shape, logical, state.after, pageRows, quoted);
  const lastPage = source.values.length < pageRows;
  // The target's rows in the same key range: one more than a page may hold, so an extra row shows.
  const target = await readPage(to, shape, logical, state.after, pageRows + 1, quoted, lastPage ? null : source.last);
  const [a, b] = await Promise.all(
    [source, target].map((p) => sha256Hex(p.values.map((r) => JSON.stringify(r)).join("\n"))),
  );
  if (source.values.length !== target.values.length || a !== b) {
    const rows = (n: number) => state.verified[state.table]! + n;
    const sourceReport = { rows: rows(source.values.length), checksum: a! };
    throw pageDiffers(opts, shape.name, sourceReport, { rows: rows(target.values.length), checksum: b! });
  }
  state.verified[state.table]! += source.values.length;
  if (!lastPage) state.after = source.last;
  else if (state.table + 1 < shapes.length) Object.assign(state, { table: state.table + 1, after: null });
  else Object.assign(state, { phase: "switch", table: 0, after: null });
  return 2;
}

/** The error that stops a move whose copy of `table` differs: what happened, and how to delete the copy. */
function pageDiffers(
  { logical, fromName, toName }: StepOptions,
  table: string,
  source: { rows: number; checksum: string },
  target: { rows: number; checksum: string },
): ShardMoveError {
  return new ShardMoveError(
    `logical shard ${logical}: the copy in ${toName} differs from ${fromName} in ${table} (${source.rows} → ${target.rows} rows so far). ` +
      `The move stopped: ${fromName} serves the shard and takes writes again; the copy in ${toName} stays fenced off until it is deleted, ` +
      `in steps: POST /admin/shards/abort {"logical": ${logical}, "to": "${toName}"} until it answers done (npm run shard:move does it)`,
    [{ table, source: { table, ...source }, target: { table, ...target } }],
  );
}
