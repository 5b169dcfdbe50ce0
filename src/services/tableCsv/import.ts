/**
 * POST /table/{tableId}/import (docs/api-guide.md › CSV import and export): a CSV file streamed into a table.
 *
 * The body is parsed as it arrives (./records: counted, checked as UTF-8, csv-parse), never held whole. The
 * header row names the columns: a live column of the same name (case-insensitive) or id receives the values, any
 * other name gets a new column whose type is given by the caller or inferred from the first SAMPLE_ROWS rows
 * (./targets). The work is bounded (./plan, docs/api-guide.md › Limits): at most MAX_CSV_CELLS cells (rows ×
 * columns) per import and CELLS_PER_BATCH per write, each write awaited before the next.
 *
 * Both modes stage their rows hidden and make them live in one final D1 batch with the answer kept for the
 * request's Idempotency-Key (./stage), so a crash never leaves rows without the answer a retry replays.
 * mode "partial" (default, ./partial): a row with a problem is reported by its line and skipped; the valid rows are written.
 * mode "atomic" (./atomic): any problem is 422 with the lines, and what was staged is removed — no row, no column.
 */
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, type ServiceContext } from "../context";
import { liveColumnsQuery } from "../tables/columns";
import { importAtomic } from "./atomic";
import type { ImportType } from "./convert";
import { importPartial, type WriteOutcome } from "./partial";
import { boundsFor, SAMPLE_ROWS } from "./plan";
import { checkHeader, RecordReader, type CsvRecord } from "./records";
import { matchTargets, type Target } from "./targets";

export type ImportMode = "partial" | "atomic";

export interface CsvImportInput {
  tableId: string;
  body: ReadableStream<Uint8Array>;
  mode: ImportMode;
  /** Types for columns the import creates, by header name. */
  types: Record<string, ImportType>;
  delimiter: string;
}

export interface CsvImportResult extends WriteOutcome {
  columns: { header: string; columnId: string | null; type: string | null; created: boolean; ignored: boolean }[];
}

/** The sample first, then the records still to come. */
async function* recordsOf(sample: readonly CsvRecord[], reader: RecordReader): AsyncGenerator<CsvRecord> {
  yield* sample;
  for (let rec = await reader.next(); rec; rec = await reader.next()) yield rec;
}

export async function importCsv(ctx: ServiceContext, input: CsvImportInput): Promise<CsvImportResult> {
  const [[tableRow], live] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
  ]);
  const { table } = checkTableAccess(tableRow, "write");
  const reader = new RecordReader(input.body, { delimiter: input.delimiter, skipBadRecords: input.mode === "partial" });
  try {
    const headers = checkHeader(await reader.next());
    const sample: CsvRecord[] = [];
    while (sample.length < SAMPLE_ROWS) {
      const rec = await reader.next();
      if (!rec) break;
      sample.push(rec);
    }
    const targets = matchTargets(table, headers, live, sample, input.types);
    const plan = {
      table,
      targets,
      records: recordsOf(sample, reader),
      ...boundsFor(targets.filter((t) => t.column).length),
    };
    // The answer (what the route sends, `{ data }`) is kept for the request's Idempotency-Key in the commit's batch.
    const answer = (outcome: WriteOutcome) => ({ data: result(outcome, targets) });
    if (input.mode === "atomic") {
      const { imported } = await importAtomic(ctx, plan, (n) => answer({ imported: n, failed: 0, errors: [] }));
      return result({ imported, failed: 0, errors: [] }, targets);
    }
    return result(await importPartial(ctx, plan, () => reader.skipped, answer), targets);
  } finally {
    reader.cancel();
  }
}

function result(outcome: WriteOutcome, targets: Target[]): CsvImportResult {
  return {
    ...outcome,
    columns: targets.map((t) => ({
      header: t.header,
      columnId: t.column ? t.column.column.id : null,
      type: t.type,
      created: t.created,
      ignored: t.column === null,
    })),
  };
}
