/**
 * What the partial and atomic writers share: the bounds on an import's work (docs/api-guide.md › Limits), the
 * parsed import they write, and the tally of row problems.
 */
import type { TableRow } from "../tables/serialize";
import { MAX_BULK_ROWS } from "../tables/rows";
import { MAX_REPORTED_ERRORS, type CsvRecord, type RowProblem } from "./records";
import type { Target } from "./targets";

/** Data rows of one import. */
export const MAX_CSV_ROWS = 250_000;
/**
 * Cells of one import (data rows × imported columns): 250,000 rows of 4 columns or 5,000 rows of 200. Past it an
 * atomic import is 413 and leaves nothing; a partial import reports the first row past it and reads no further.
 */
export const MAX_CSV_CELLS = 1_000_000;
/**
 * Cells per write (one D1 batch, awaited before the next): small enough that another writer of the same database
 * gets in between (a batch of 5,000 cells takes tens of milliseconds, not the seconds 2,000 rows of 200 columns took).
 */
export const CELLS_PER_BATCH = 5_000;
/**
 * A wide row costs more than its cells: the search index rewrites a row's text once per text cell it gains, so
 * inserting a row of n columns is work in n². A batch of rows of n columns also keeps rows × n² within this
 * (200 columns: 10 rows, 2,000 cells, about a quarter of a second on the local engine under load).
 */
export const CELL_PAIRS_PER_BATCH = 400_000;
/** Rows read before column types are inferred. */
export const SAMPLE_ROWS = 1000;

export interface ImportPlan {
  table: TableRow;
  targets: Target[];
  /** The data records in file order: the sample, then the rest as it streams. */
  records: AsyncIterable<CsvRecord>;
  /** Data rows this import may have: MAX_CSV_ROWS, or fewer so rows × columns stays within MAX_CSV_CELLS. */
  maxRows: number;
  /** Rows per write batch, so rows × columns stays within CELLS_PER_BATCH. */
  batchRows: number;
}

/** The bounds for an import writing `columns` columns. */
export function boundsFor(columns: number): { maxRows: number; batchRows: number } {
  const n = Math.max(1, columns);
  const batchRows = Math.min(
    MAX_BULK_ROWS,
    Math.floor(CELLS_PER_BATCH / n),
    Math.floor(CELL_PAIRS_PER_BATCH / (n * n)),
  );
  return { maxRows: Math.min(MAX_CSV_ROWS, Math.floor(MAX_CSV_CELLS / n)), batchRows: Math.max(1, batchRows) };
}

export function tooManyRows(plan: ImportPlan, rec: CsvRecord): RowProblem {
  const columns = plan.targets.filter((t) => t.column).length;
  return {
    line: rec.info.lines,
    message: `an import has at most ${plan.maxRows} rows of ${columns} column(s) (${MAX_CSV_CELLS} cells, docs/api-guide.md › Limits); this row and the rest were not read`,
  };
}

/** Rows with problems: every one counted, the first MAX_REPORTED_ERRORS problems kept. */
export class Problems {
  failed = 0;
  readonly list: RowProblem[] = [];

  report(problems: readonly RowProblem[]) {
    this.failed += 1;
    for (const p of problems) if (this.list.length < MAX_REPORTED_ERRORS) this.list.push(p);
  }
}

/**
 * Between two write batches: a pause of a quarter of the last batch's time (at most 250 ms), so the queries of
 * other requests on the same database — each a few round trips — get in rather than queue behind the next batch
 * the import sends at once. It costs the import at most a fifth of its time. (The batch is timed with
 * performance.now(), which in a Worker advances across I/O — the batch's round trip is what it measures; the
 * request's clock, ctx.now, stays the one time the import writes.)
 */
export function breather(lastBatchMs: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(1, lastBatchMs / 4))));
}
