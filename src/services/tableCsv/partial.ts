/**
 * mode "partial" (docs/api-guide.md › CSV import and export): a row with a problem is reported by its line and
 * skipped; the valid rows are written as they stream, a batch of at most CELLS_PER_BATCH cells at a time through
 * the same row service as POST /table/{tableId}/rows (insertRows: one D1 batch each, formulas recomputed). One
 * batch is in flight while the next is parsed; each is awaited, and followed by a short pause (plan.ts breather),
 * before the next starts, so other requests on the database get in between.
 */
import type { ServiceContext } from "../context";
import { emitAfterResponse, rowEvent } from "../events/events";
import { insertRows } from "../tables/rows";
import { breather, tooManyRows, Problems, type ImportPlan } from "./plan";
import type { RowProblem } from "./records";
import { cellsOf, convertRecord, createTargets, storeNewItems, writtenColumns, type RowValues } from "./targets";

export interface WriteOutcome {
  imported: number;
  failed: number;
  errors: RowProblem[];
}

export async function importPartial(ctx: ServiceContext, plan: ImportPlan, skipped: () => readonly RowProblem[]): Promise<WriteOutcome> {
  const { table, targets } = plan;
  await createTargets(ctx, table, targets);
  const problems = new Problems();
  let imported = 0;
  let pending: Promise<void> = Promise.resolve();
  let lastMs = 0;
  let batch: RowValues[] = [];

  /** Starts writing the rows collected so far once the previous write has finished (parsing carries on meanwhile). */
  const write = async () => {
    await pending;
    if (batch.length === 0) return;
    await breather(lastMs);
    const full = batch;
    batch = [];
    await storeNewItems(ctx, targets);
    const started = performance.now();
    pending = insertRows(ctx, { table, rows: full.map((v) => cellsOf(targets, v)), columns: writtenColumns(targets) }).then((created) => {
      lastMs = performance.now() - started;
      imported += created.rows.length;
      emitAfterResponse(ctx, created.rows.map((r, i) => rowEvent("row.created", table, r.id, Object.keys(created.written[i] ?? {}))));
    });
    // Surfaced by the next write; until then it must not count as unhandled.
    pending.catch(() => undefined);
  };

  let seen = 0;
  try {
    for await (const rec of plan.records) {
      if (++seen > plan.maxRows) {
        problems.report([tooManyRows(plan, rec)]);
        break;
      }
      const out = convertRecord(targets, rec);
      if ("problems" in out) {
        problems.report(out.problems);
        continue;
      }
      batch.push(out.values);
      if (batch.length >= plan.batchRows) await write();
    }
    await write();
  } catch (err) {
    // The body failed (over 50 MiB, not UTF-8…): the write in flight finishes before the error is answered.
    await pending.catch(() => undefined);
    throw err;
  }
  await pending;
  // Records the parser itself could not read (a stray quote, an over-long record) are problems of their lines too.
  for (const p of skipped()) problems.report([p]);
  problems.list.sort((a, b) => a.line - b.line);
  return { imported, failed: problems.failed, errors: problems.list };
}
