/**
 * mode "atomic" (docs/api-guide.md › CSV import and export): all rows or none, without holding the rows in memory.
 *
 * Rows are staged as they stream: written in batches of at most CELLS_PER_BATCH cells (each its own D1 batch, so
 * other writers get in between), but with is_deleted = 1 and origin_id = a marker of this import. Every read of
 * rows (listings, search — the search trigger indexes them as not live —, formulas, exports) skips deleted rows,
 * so nothing is visible and no event is sent. Columns the import creates are hidden the same way right after they
 * are created, and new select items are kept in memory (they are few: labels, not rows).
 *
 * Commit is one D1 batch: the columns' select items stored, the new columns and the staged rows made live
 * (one UPDATE per column, one for all rows: at most MAX_CSV_ROWS rows, no cell touched, so the final step is
 * bounded by the row limit — `npm run bench -- csv` measures it in the atomic phases). Then formulas are recomputed and events sent, a batch at a time.
 * On any failure (a bad row — the rest is still read and checked so the 422 lists every problem —, the cells
 * bound, an unreadable record, a failed write) the staged rows and their cells are deleted through plain SQL
 * DELETEs, a batch at a time, and the hidden columns with them: nothing is left behind.
 *
 * What stays in memory is the ids of the staged rows (for the recomputation and the events), not their values.
 */
import { d1Of } from "../../db/d1";
import { ApiError, notFound } from "../../errors";
import type { ServiceContext } from "../context";
import { emitAfterResponse, rowEvent } from "../events/events";
import { recalculateFormulasAfterWrite } from "../tables/recompute";
import { idsBeside } from "../../db/shardIds";
import { breather, MAX_CSV_CELLS, Problems, tooManyRows, type ImportPlan } from "./plan";
import { problemsError } from "./records";
import { convertRecord, createTargets, type RowValues, type Target } from "./targets";

/** Bytes of cell JSON per INSERT statement; D1 caps one bound value at 2 MB. */
const CELL_CHUNK_BYTES = 1_000_000;
/** Rows recomputed and announced per step after the commit (the bulk-row API's batch). */
const AFTER_COMMIT_ROWS = 1000;

const STAGE_ROWS = `INSERT INTO rows (id, table_id, project_id, workspace_id, owner_id, origin_id, seq, is_deleted, created_at, updated_at)
  SELECT j.value, ?1, ?2, ?3, ?4, ?7, (SELECT COALESCE(MAX(seq), 0) FROM rows WHERE table_id = ?1) + j.key + 1, 1, ?5, ?5
  FROM json_each(?6) j
  WHERE EXISTS (SELECT 1 FROM tables t WHERE t.id = ?1 AND t.is_deleted = 0)`;

const STAGE_CELLS = `INSERT INTO cells (id, table_id, row_id, column_id, workspace_id, origin_id, is_identifier, data, is_deleted, created_at, updated_at)
  SELECT j.value ->> 0, ?1, j.value ->> 1, j.value ->> 2, ?2, '', j.value ->> 3, j.value -> 4, 0, ?3, ?3
  FROM json_each(?4) j
  WHERE EXISTS (SELECT 1 FROM rows r WHERE r.id = j.value ->> 1)`;

const HIDE_COLUMNS = `UPDATE columns SET is_deleted = 1 WHERE id IN (SELECT value FROM json_each(?1))`;
const SHOW_COLUMN = `UPDATE columns SET is_deleted = 0, data = ?2, updated_at = ?3 WHERE id = ?1 AND is_deleted = 1`;
const STORE_ITEMS = `UPDATE columns SET data = ?2, updated_at = ?3 WHERE id = ?1 AND is_deleted = 0`;
const SHOW_ROWS = `UPDATE rows SET is_deleted = 0, origin_id = '', updated_at = ?3
  WHERE table_id = ?1 AND origin_id = ?2 AND is_deleted = 1 AND EXISTS (SELECT 1 FROM tables t WHERE t.id = ?1 AND t.is_deleted = 0)`;

const STAGED = `SELECT id FROM rows WHERE table_id = ?1 AND origin_id = ?2 AND is_deleted = 1 ORDER BY id LIMIT ?3`;
const DELETE_STAGED_CELLS = `DELETE FROM cells WHERE table_id = ?1 AND row_id IN (${STAGED})`;
const DELETE_STAGED_ROWS = `DELETE FROM rows WHERE id IN (${STAGED})`;
/** The columns this import created: never answered for, so removed whether or not they were hidden yet. */
const DELETE_CREATED_COLUMNS = `DELETE FROM columns WHERE id IN (SELECT value FROM json_each(?1))`;

/** `[cellId, rowId, columnId, isIdentifier, value]` entries as JSON arrays, split so no chunk passes CELL_CHUNK_BYTES. */
function cellChunks(entries: readonly unknown[][]): string[] {
  const chunks: string[] = [];
  let parts: string[] = [];
  let bytes = 2;
  for (const e of entries) {
    const entry = JSON.stringify(e);
    // UTF-16 length × 3 bounds the UTF-8 size without encoding.
    const size = entry.length * 3 + 1;
    if (parts.length && bytes + size > CELL_CHUNK_BYTES) {
      chunks.push(`[${parts.join(",")}]`);
      parts = [];
      bytes = 2;
    }
    parts.push(entry);
    bytes += size;
  }
  if (parts.length) chunks.push(`[${parts.join(",")}]`);
  return chunks;
}

class Stage {
  readonly marker = `csv-import:${crypto.randomUUID()}`;
  readonly rowIds: string[] = [];
  /** The columns this import created (hidden until the commit). */
  readonly hiddenColumns: string[] = [];
  private newId: () => string;
  private lastMs = 0;

  constructor(
    private ctx: ServiceContext,
    private plan: ImportPlan,
  ) {
    this.newId = idsBeside(plan.table.id);
  }

  private get d1() {
    return d1Of(this.ctx.db);
  }

  /** Creates the import's new columns and hides them at once (a reader may see one, empty, for that instant). */
  async prepareColumns() {
    await createTargets(this.ctx, this.plan.table, this.plan.targets, this.hiddenColumns);
    if (this.hiddenColumns.length) await this.d1.prepare(HIDE_COLUMNS).bind(JSON.stringify(this.hiddenColumns)).run();
  }

  /** One D1 batch: the rows (hidden) and their cells. */
  async write(batch: readonly RowValues[]) {
    const { table, targets } = this.plan;
    const t = this.ctx.now;
    const ids = batch.map(() => this.newId());
    const entries: unknown[][] = [];
    batch.forEach((values, i) => {
      values.forEach((value, k) => {
        const column = targets[k]!.column?.column;
        if (value !== undefined && column) entries.push([this.newId(), ids[i], column.id, column.isIdentifier ? 1 : 0, value]);
      });
    });
    await breather(this.lastMs);
    const started = performance.now();
    const [inserted] = await this.d1.batch([
      this.d1.prepare(STAGE_ROWS).bind(table.id, table.projectId, table.workspaceId, this.ctx.user.id, t, JSON.stringify(ids), this.marker),
      ...cellChunks(entries).map((chunk) => this.d1.prepare(STAGE_CELLS).bind(table.id, table.workspaceId, t, chunk)),
    ]);
    this.lastMs = performance.now() - started;
    if ((inserted?.meta.changes ?? 0) < ids.length) throw notFound("Table");
    for (const id of ids) this.rowIds.push(id);
  }

  /** One D1 batch: select items stored, new columns and staged rows live. */
  async commit() {
    const { table, targets } = this.plan;
    const t = this.ctx.now;
    const hidden = new Set(this.hiddenColumns);
    const columnStatements = targets.flatMap((x) => {
      const c = x.column;
      if (!c || (!hidden.has(c.column.id) && !c.added)) return [];
      const data = JSON.stringify({ ...c.column.data, ...(c.items.length ? { selectItems: c.items } : {}) });
      return [this.d1.prepare(hidden.has(c.column.id) ? SHOW_COLUMN : STORE_ITEMS).bind(c.column.id, data, t)];
    });
    const results = await this.d1.batch([...columnStatements, this.d1.prepare(SHOW_ROWS).bind(table.id, this.marker, t)]);
    // changes counts what the search triggers updated too: at least every staged row, or none (the table was deleted).
    if ((results.at(-1)?.meta.changes ?? 0) < this.rowIds.length) throw notFound("Table");
  }

  /** Deletes what was staged, a batch of rows at a time, then the hidden columns. */
  async undo() {
    const { table } = this.plan;
    for (;;) {
      const [, rows] = await this.d1.batch([
        this.d1.prepare(DELETE_STAGED_CELLS).bind(table.id, this.marker, this.plan.batchRows),
        this.d1.prepare(DELETE_STAGED_ROWS).bind(table.id, this.marker, this.plan.batchRows),
      ]);
      if ((rows?.meta.changes ?? 0) === 0) break;
    }
    if (this.hiddenColumns.length) await this.d1.prepare(DELETE_CREATED_COLUMNS).bind(JSON.stringify(this.hiddenColumns)).run();
  }

  /** Formulas of the new rows and their events, a step at a time (the rows are live already). */
  async announce() {
    const { table, targets } = this.plan;
    const columnIds = targets.flatMap((x: Target) => (x.column ? [x.column.column.id] : []));
    for (let i = 0; i < this.rowIds.length; i += AFTER_COMMIT_ROWS) {
      const ids = this.rowIds.slice(i, i + AFTER_COMMIT_ROWS);
      await recalculateFormulasAfterWrite(this.ctx.env, table.id, ids);
      // The columns the import writes (a row's empty fields included: its values are no longer in memory).
      emitAfterResponse(this.ctx, ids.map((id) => rowEvent("row.created", table, id, columnIds)));
    }
  }
}

export async function importAtomic(ctx: ServiceContext, plan: ImportPlan): Promise<{ imported: number }> {
  const stage = new Stage(ctx, plan);
  const problems = new Problems();
  try {
    await stage.prepareColumns();
    let batch: RowValues[] = [];
    let seen = 0;
    for await (const rec of plan.records) {
      if (++seen > plan.maxRows) {
        const p = tooManyRows(plan, rec);
        throw new ApiError("PayloadTooLargeError", `An import has at most ${MAX_CSV_CELLS} cells (rows × columns); line ${p.line} is past it and nothing was written`, {
          details: [{ path: `line ${p.line}`, message: p.message, line: p.line }],
        });
      }
      const out = convertRecord(plan.targets, rec);
      if ("problems" in out) problems.report(out.problems);
      // Once a row has failed nothing more is written: the rest is only read and checked, for the answer.
      else if (problems.failed === 0) {
        batch.push(out.values);
        if (batch.length >= plan.batchRows) {
          await stage.write(batch);
          batch = [];
        }
      }
    }
    if (problems.failed > 0) throw problemsError(`${problems.failed} row(s) cannot be imported; nothing was written (first at line ${problems.list[0]!.line})`, problems.list);
    if (batch.length) await stage.write(batch);
    await stage.commit();
  } catch (err) {
    // The caller gets the import's own error. Should the undo fail too, what it left is hidden (is_deleted = 1):
    // no read shows it, and it is logged with its marker.
    await stage.undo().catch((undoErr: unknown) => {
      console.error(JSON.stringify({ level: "error", msg: "csv import: undoing a failed atomic import failed", tableId: plan.table.id, marker: stage.marker, error: String(undoErr) }));
    });
    throw err;
  }
  await stage.announce();
  return { imported: stage.rowIds.length };
}
