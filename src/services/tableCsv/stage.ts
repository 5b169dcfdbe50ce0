/**
 * Staging, what both import modes write through (docs/api-guide.md › CSV import and export): nothing an import
 * writes is visible, or answers for its Idempotency-Key, until one final D1 batch commits it all.
 *
 * Rows are staged as they stream: written in batches of at most CELLS_PER_BATCH cells (each its own D1 batch, so
 * other writers get in between), but with is_deleted = 1 and origin_id = a marker of this import. Every read of
 * rows (listings, search — the search trigger indexes them as not live —, formulas, exports) skips deleted rows,
 * so nothing is visible and no event is sent. Columns the import creates are made at the start and stay visible,
 * empty until the commit: hiding them would cost the commit a rewrite of every row's search entry per column
 * (the search_columns_au trigger, migrations/shard/0005) — for 200 new columns of 1,000 rows, a 26 s batch that
 * held the database. New select items are kept in memory (they are few: labels, not rows).
 *
 * Commit is one D1 batch: the last rows staged, the columns' new select items stored, the rows' `row.created`
 * entries of the change log (one INSERT … SELECT that reads each imported cell once, the only step of the commit
 * that grows with the cells: about 0.1–0.6 s for 80,000 cells on a loaded test machine), the staged rows made live
 * (one UPDATE for all rows: at most MAX_CSV_ROWS rows, no cell written, so that step is bounded by the row
 * limit — `npm run bench -- csv` measures it) and the import's answer kept for its
 * Idempotency-Key (services/idempotency.ts keptAnswerStatements), only if the rows went live. A crash after it
 * leaves the answer for the retry; a crash before it leaves nothing live and an empty claim the retry takes over
 * (docs/api-guide.md › HTTP semantics). An import may run longer than the claim's 60 s lease: each batch renews
 * it, and the commit takes effect only while the claim is still this request's (services/idempotency.ts claimLease),
 * so a retry never runs beside it. Then formulas are recomputed and events sent, a batch at a time.
 *
 * undo() deletes what was staged through plain SQL DELETEs, a batch at a time, and the created columns with it.
 * The rows an isolate that died leaves (never committed, never undone) are removed by ./sweep; a column it created
 * stays, empty and visible, for a person to delete (it may hold what someone wrote in it since).
 */
import { d1Of } from "../../db/d1";
import { ApiError, conflict, notFound } from "../../errors";
import { type ServiceContext, unkeyed } from "../context";
import { emitAfterResponse, rowEvent } from "../events/events";
import { claimLease, keptAnswerStatements } from "../idempotency";
import { recalculateFormulasAfterWrite } from "../tables/recompute";
import { breather, type ImportPlan } from "./plan";
import { createTargets, type RowValues, type Target } from "./targets";
import { rowInsertStatements } from "../tables/queries";
import {
  COMMITTED,
  createdColumnsDeletedStatement,
  deleteCreatedColumnsStatement,
  deleteStagedStatements,
  liveAndHeldStatement,
  showRowsStatement,
  stagedRowsCreatedStatement,
  storeItemsStatement,
} from "./queries";
import { actorOf, changeLogOff } from "../changes/log";

/** What origin_id of a staged row starts with; ./sweep finds abandoned imports by it. */
export const STAGED_MARKER_PREFIX = "csv-import:";
/** Rows recomputed and announced per step after the commit (the bulk-row API's batch). */
const AFTER_COMMIT_ROWS = 1000;

export class Stage {
  readonly marker = `${STAGED_MARKER_PREFIX}${crypto.randomUUID()}`;
  readonly rowIds: string[] = [];
  /** The columns this import created. */
  readonly createdColumns: string[] = [];
  private newId: () => string;
  private lastMs = 0;
  /** performance.now() when the stage began: the request's clock (ctx.now) plus the time since is the time now. */
  private readonly began = performance.now();

  constructor(
    private ctx: ServiceContext,
    private plan: ImportPlan,
  ) {
    this.newId = ctx.ids.seriesBeside(plan.table.id);
  }

  private get d1() {
    return d1Of(this.ctx.db);
  }

  /**
   * Creates the import's new columns. Not as the request's answer: a column create keeps its own answer for a keyed request, and the import's is the commit's.
   */
  async prepareColumns() {
    await createTargets(unkeyed(this.ctx), this.plan.table, this.plan.targets, this.createdColumns);
  }

  /** The statements staging `batch`: rows hidden, and their cells. */
  private stageStatements(batch: readonly RowValues[]): { statements: D1PreparedStatement[]; ids: string[] } {
    const { table, targets } = this.plan;
    const t = this.ctx.now;
    const ids = batch.map(() => this.newId());
    const entries: unknown[][] = [];
    batch.forEach((values, i) => {
      values.forEach((value, k) => {
        const column = targets[k]!.column?.column;
        if (value !== undefined && column)
          entries.push([this.newId(), ids[i], column.id, column.isIdentifier ? 1 : 0, value]);
      });
    });
    const statements = rowInsertStatements(this.d1, table, this.ctx.user.id, t, ids, entries, this.marker);
    return { statements, ids };
  }

  /** One D1 batch: the rows (hidden) and their cells, after a pause of a quarter of the last batch's time. */
  async write(batch: readonly RowValues[]) {
    const { statements, ids } = this.stageStatements(batch);
    await breather(this.lastMs);
    const started = performance.now();
    // Each batch renews the lease of the request's Idempotency-Key claim: an import may run past it.
    const at = this.ctx.now + Math.round(performance.now() - this.began);
    const results = await this.d1.batch([...statements, ...claimLease(this.ctx, this.d1).renew(at)]);
    this.lastMs = performance.now() - started;
    if ((results[0]?.meta.changes ?? 0) < ids.length) throw notFound("Table");
    for (const id of ids) this.rowIds.push(id);
  }

  /**
   * One D1 batch: the last rows staged, new select items stored, every staged row live, and
   * `answer(imported)` kept as the request's answer when it all took.
   */
  async commit(last: readonly RowValues[], answer: (imported: number) => unknown) {
    const { table, targets } = this.plan;
    const t = this.ctx.now;
    const staged = last.length ? this.stageStatements(last) : { statements: [], ids: [] };
    const total = this.rowIds.length + staged.ids.length;
    const columnStatements = targets.flatMap((x) => {
      const c = x.column;
      if (!c?.added) return [];
      const data = JSON.stringify({ ...c.column.data, ...(c.items.length ? { selectItems: c.items } : {}) });
      return [storeItemsStatement(this.d1, c.column.id, data, t)];
    });
    const kept = await keptAnswerStatements(this.ctx, {
      d1: this.d1,
      payload: answer(total),
      when: { sql: COMMITTED, params: [table.id, this.marker, table.id] },
    });
    // Only while the request still holds its claim: one that a retry took over (this request stalled past the
    // lease) leaves the import to the retry.
    const { held } = claimLease(this.ctx, this.d1);
    if (this.rowIds.length) await breather(this.lastMs);
    // The rows' `row.created` entries (source `import`) go in this batch, on the conditions that make them live.
    const actor = JSON.stringify(actorOf(this.ctx));
    const log = changeLogOff(this.ctx.env)
      ? []
      : [stagedRowsCreatedStatement(this.d1, { tableId: table.id, marker: this.marker, t, total, actor, held })];
    const results = await this.d1.batch([
      ...staged.statements,
      ...columnStatements,
      ...log,
      showRowsStatement(this.d1, table.id, this.marker, t, total, held),
      ...kept,
    ]);
    for (const id of staged.ids) this.rowIds.push(id);
    const shown = results[staged.statements.length + columnStatements.length + log.length];
    // changes counts what the search triggers updated too: at least every staged row, or none.
    if ((shown?.meta.changes ?? 0) < total) throw await this.whyNotShown(held);
  }

  /** Why the commit made no row live: the table was deleted, or the request's claim was taken over. */
  private async whyNotShown(held: { sql: string; params: readonly unknown[] } | null): Promise<ApiError> {
    const row = await liveAndHeldStatement(this.d1, this.plan.table.id, held).first<{ live: number; held: number }>();
    if (!row?.live) return notFound("Table");
    if (!row.held)
      return conflict(
        "A retry with this Idempotency-Key took the import over while this request stalled; this request wrote nothing",
      );
    return new ApiError(
      "InternalError",
      "Rows this import staged were removed before it committed; nothing was written",
    );
  }

  /** Deletes what was staged, a batch of rows at a time, then the created columns. */
  async undo() {
    const { table } = this.plan;
    for (;;) {
      const [, rows] = await this.d1.batch(deleteStagedStatements(this.d1, table.id, this.marker, this.plan.batchRows));
      if ((rows?.meta.changes ?? 0) === 0) break;
    }
    if (!this.createdColumns.length) return;
    const actor = JSON.stringify(actorOf(this.ctx));
    const log = changeLogOff(this.ctx.env)
      ? []
      : [createdColumnsDeletedStatement(this.d1, this.createdColumns, actor, this.ctx.now)];
    await this.d1.batch([...log, deleteCreatedColumnsStatement(this.d1, this.createdColumns)]);
  }

  /** Formulas of the new rows and their events, a step at a time (the rows are live already). */
  async announce() {
    const { table, targets } = this.plan;
    const columnIds = targets.flatMap((x: Target) => (x.column ? [x.column.column.id] : []));
    for (let i = 0; i < this.rowIds.length; i += AFTER_COMMIT_ROWS) {
      const ids = this.rowIds.slice(i, i + AFTER_COMMIT_ROWS);
      await recalculateFormulasAfterWrite(this.ctx.env, table.id, ids);
      // The columns the import writes (a row's empty fields included: its values are no longer in memory).
      emitAfterResponse(
        this.ctx,
        ids.map((id) => rowEvent("row.created", table, id, columnIds)),
      );
    }
  }
}

/**
 * Runs an import through a Stage: `stream` stages batches with `write` and hands back the last (unwritten) batch,
 * which the commit writes with the rest; any failure undoes what was staged and is rethrown. The caller gets the
 * stage back, committed, to announce.
 */
export async function staged(
  ctx: ServiceContext,
  plan: ImportPlan,
  stream: (write: (batch: readonly RowValues[]) => Promise<void>) => Promise<RowValues[]>,
  answer: (imported: number) => unknown,
): Promise<Stage> {
  const stage = new Stage(ctx, plan);
  try {
    await stage.prepareColumns();
    const last = await stream((batch) => stage.write(batch));
    await stage.commit(last, answer);
  } catch (err) {
    // The caller gets the import's own error. Should the undo fail too, what it left is hidden (is_deleted = 1):
    // no read shows it, it is logged with its marker, and ./sweep removes it later.
    await stage.undo().catch((undoErr: unknown) => {
      console.error(
        JSON.stringify({
          level: "error",
          msg: "csv import: undoing a failed import failed",
          tableId: plan.table.id,
          marker: stage.marker,
          error: String(undoErr),
        }),
      );
    });
    throw err;
  }
  return stage;
}
