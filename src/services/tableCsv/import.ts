/**
 * POST /table/{tableId}/import (docs/api-guide.md › CSV import and export): a CSV file streamed into a table.
 *
 * The body is parsed as it arrives (csv-parse), never held whole. The header row names the columns: a live column
 * of the same name (case-insensitive) or id receives the values, any other name gets a new column whose type is
 * given by the caller or inferred from the first SAMPLE_ROWS rows. Rows are written in chunks through the same
 * row service as POST /table/{tableId}/rows (createRows: one atomic D1 batch per chunk, formulas recomputed).
 *
 * mode "partial" (default): a row with a problem is reported by its line and skipped; the valid rows are written.
 * mode "atomic": every row is read and checked first (held in memory, converted); any problem is 422 with the
 * lines and nothing is written — no column either.
 */
import { Buffer } from "node:buffer";
import { CsvError, parse } from "csv-parse/stream";
import { and, eq } from "drizzle-orm";
import { cells, rows } from "../../db/schema";
import { ApiError, unprocessable, type ErrorDetail } from "../../errors";
import { checkTableAccess, tableAccessStatement } from "../../auth/access";
import { inJson } from "../../db/sql";
import { read, type ServiceContext } from "../context";
import { emitAfterResponse, rowEvent } from "../events/events";
import { createColumn, liveColumnsQuery, updateColumn } from "../tables/columns";
import { insertRows } from "../tables/rows";
import { columnType, isComputedColumn } from "../tables/cellValues";
import type { ColumnDataInput } from "../../schemas/tables";
import type { ColumnRow, TableRow } from "../tables/serialize";
import { ImportColumn, inferType, type ImportType } from "./convert";

/** docs/api-guide.md › Limits: a CSV import body is at most 50 MiB. */
export const MAX_CSV_BYTES = 50 * 1024 * 1024;
/** Data rows of one import (beyond it: 422 in atomic mode, reported and not written in partial mode). */
export const MAX_CSV_ROWS = 250_000;
export const MAX_CSV_COLUMNS = 200;
/** Rows read before column types are inferred. */
export const SAMPLE_ROWS = 1000;
/** Rows per createRows call (one D1 batch). */
const CHUNK_ROWS = 2000;
/** Row problems listed in a response (the count covers them all). */
export const MAX_REPORTED_ERRORS = 1000;

export type ImportMode = "partial" | "atomic";

export interface CsvImportInput {
  tableId: string;
  body: ReadableStream<Uint8Array>;
  mode: ImportMode;
  /** Types for columns the import creates, by header name. */
  types: Record<string, ImportType>;
  delimiter: string;
}

export interface RowProblem {
  line: number;
  column?: string;
  message: string;
}

export interface CsvImportResult {
  imported: number;
  failed: number;
  errors: RowProblem[];
  columns: { header: string; columnId: string | null; type: string | null; created: boolean; ignored: boolean }[];
}

interface Record_ {
  record: string[];
  info: { lines: number };
}

/** A byte counter in front of the parser: 413 past the limit, whatever Content-Length said. */
function limitBytes(limit: number): TransformStream<Uint8Array, Buffer> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > limit) throw new ApiError("PayloadTooLargeError", `A CSV import is limited to ${limit} bytes (docs/api-guide.md › Limits)`);
      controller.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    },
  });
}

/** The CSV parser's own complaint (an unclosed quote…) as a row problem on its line. */
function csvProblem(err: unknown): RowProblem | null {
  if (err instanceof CsvError) {
    const line = Number((err as unknown as { lines?: number }).lines) || 1;
    return { line, message: err.message.replace(/^[^:]*:\s*/, "") };
  }
  return null;
}

function problemsError(message: string, problems: readonly RowProblem[]): ApiError {
  const details: ErrorDetail[] = problems.slice(0, MAX_REPORTED_ERRORS).map((p) => ({
    path: p.column === undefined ? `line ${p.line}` : `line ${p.line}.${p.column}`,
    message: p.message,
    line: p.line,
  }));
  return unprocessable(message, details);
}

/** Reads records one at a time, so the header and the sample can be taken before the rest streams. */
class RecordReader {
  private reader: ReadableStreamDefaultReader<Record_>;
  skipped: RowProblem[] = [];

  constructor(body: ReadableStream<Uint8Array>, input: CsvImportInput) {
    const parser = parse({
      bom: true,
      delimiter: input.delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: 1_000_000,
      skip_records_with_error: input.mode === "partial",
      on_skip: (err: CsvError | undefined) => {
        const p = err ? csvProblem(err) : null;
        if (p) this.skipped.push(p);
      },
    } as Parameters<typeof parse>[0]);
    this.reader = body.pipeThrough(limitBytes(MAX_CSV_BYTES)).pipeThrough(parser as unknown as TransformStream<Buffer, Record_>).getReader();
  }

  async next(): Promise<Record_ | null> {
    try {
      const { done, value } = await this.reader.read();
      return done ? null : value;
    } catch (err) {
      if (err instanceof ApiError) throw err;
      const p = csvProblem(err);
      if (p) throw problemsError(`The CSV cannot be read at line ${p.line}: ${p.message}`, [p]);
      throw err;
    }
  }

  cancel() {
    void this.reader.cancel().catch(() => undefined);
  }
}

/** The header row: names trimmed, none empty or repeated (422 on line 1). */
function checkHeader(first: Record_ | null): string[] {
  if (!first) throw problemsError("The CSV is empty: the first line names the columns", [{ line: 1, message: "no header row" }]);
  const names = first.record.map((h) => h.trim());
  const line = first.info.lines;
  if (names.length > MAX_CSV_COLUMNS) throw problemsError(`At most ${MAX_CSV_COLUMNS} columns`, [{ line, message: `${names.length} columns` }]);
  const problems: RowProblem[] = [];
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (n === "") problems.push({ line, column: String(i + 1), message: `column ${i + 1} has no name` });
    else if (seen.has(n.toLowerCase())) problems.push({ line, column: n, message: `the column name ${n} is repeated` });
    seen.add(n.toLowerCase());
  });
  if (problems.length) throw problemsError("The header row must name every column once", problems);
  return names;
}

interface Target {
  header: string;
  /** null: the CSV column is not imported (a computed column of the table). */
  column: ImportColumn | null;
  created: boolean;
  type: ImportType | null;
}

/** A new column before it exists: what conversion needs (its type and select items). */
function provisionalColumn(table: TableRow, header: string, type: ImportType, index: number): ColumnRow {
  return {
    id: `pending-${index}`,
    tableId: table.id,
    projectId: table.projectId,
    workspaceId: table.workspaceId,
    name: header,
    slug: "",
    originId: "",
    description: "",
    isIdentifier: false,
    data: (type === "select" || type === "multiSelect" ? { type, selectItems: [] } : { type }) as ColumnRow["data"],
    formula: null,
    isDeleted: false,
    createdAt: 0,
    updatedAt: 0,
  };
}

function matchTargets(table: TableRow, headers: string[], live: readonly ColumnRow[], sample: readonly Record_[], types: Record<string, ImportType>): Target[] {
  const byName = new Map<string, ColumnRow>();
  for (const c of live) if (!byName.has(c.name.trim().toLowerCase())) byName.set(c.name.trim().toLowerCase(), c);
  const byId = new Map(live.map((c) => [c.id, c]));
  return headers.map((header, i) => {
    const existing = byId.get(header) ?? byName.get(header.toLowerCase());
    if (existing) {
      if (isComputedColumn(existing)) return { header, column: null, created: false, type: null };
      return { header, column: new ImportColumn(existing, header), created: false, type: columnType(existing) as ImportType };
    }
    const given = types[header] ?? Object.entries(types).find(([k]) => k.toLowerCase() === header.toLowerCase())?.[1];
    const type = given ?? inferType(sample.map((r) => r.record[i] ?? ""));
    return { header, column: new ImportColumn(provisionalColumn(table, header, type, i), header), created: true, type };
  });
}

/** One converted row: values by target index, or its problems. */
function convertRecord(targets: readonly Target[], rec: Record_): { values: (unknown | undefined)[] } | { problems: RowProblem[] } {
  const line = rec.info.lines;
  if (rec.record.length !== targets.length) {
    // A trailing empty field list ("a,b,") is still a mismatch: say what was found.
    return { problems: [{ line, message: `${rec.record.length} fields; the header has ${targets.length}` }] };
  }
  const values: (unknown | undefined)[] = new Array(targets.length);
  let problems: RowProblem[] | null = null;
  for (let i = 0; i < targets.length; i++) {
    const t = targets[i]!;
    if (!t.column) continue;
    const { value, problem } = t.column.read(rec.record[i]!);
    if (problem) (problems ??= []).push({ line, column: t.header, message: problem });
    else values[i] = value;
  }
  return problems ? { problems } : { values };
}

/**
 * Creates the columns the import adds (select items as collected so far), then reads the table's live columns
 * back so the writes check values against what is stored.
 */
async function createTargets(ctx: ServiceContext, table: TableRow, targets: Target[]): Promise<void> {
  if (!targets.some((t) => t.created)) return;
  for (const t of targets) {
    if (!t.created || !t.column) continue;
    const data = { ...t.column.column.data, ...(t.column.items.length ? { selectItems: t.column.items } : {}) } as ColumnDataInput;
    const dto = await createColumn(ctx, { tableId: table.id, name: t.header, data });
    t.column.column = { ...t.column.column, id: dto._id, name: dto.name };
    t.column.added = false;
  }
  const live = await liveColumnsQuery(ctx.db, table.id);
  const byId = new Map(live.map((c) => [c.id, c]));
  for (const t of targets) {
    const stored = t.column && byId.get(t.column.column.id);
    if (stored && t.column) t.column.column = { ...stored, data: { ...stored.data, ...(t.column.items.length ? { selectItems: t.column.items } : {}) } as ColumnRow["data"] };
  }
}

/** Stores the select items new labels added since the last write, before rows that use them are written. */
async function storeNewItems(ctx: ServiceContext, targets: Target[]) {
  for (const t of targets) {
    if (!t.column?.added) continue;
    const c = t.column.column;
    await updateColumn(ctx, { columnId: c.id, patch: { data: { ...c.data, selectItems: t.column.items } as ColumnDataInput } });
    t.column.added = false;
  }
}

class Writer {
  imported = 0;
  readonly createdIds: string[] = [];
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private ctx: ServiceContext,
    private table: TableRow,
    private targets: Target[],
    private keepIds: boolean,
  ) {}

  /** Starts writing `batch` once the previous write has finished (parsing carries on meanwhile). */
  async push(batch: (unknown | undefined)[][]) {
    await this.pending;
    await storeNewItems(this.ctx, this.targets);
    const columns = this.targets.flatMap((t) => (t.column ? [t.column.column] : []));
    const inputs = batch.map((values) => {
      const cellsOf: Record<string, unknown> = {};
      values.forEach((v, i) => {
        if (v !== undefined) cellsOf[this.targets[i]!.column!.column.id] = v;
      });
      return cellsOf;
    });
    this.pending = insertRows(this.ctx, { table: this.table, rows: inputs, columns }).then((created) => {
      this.imported += created.rows.length;
      if (this.keepIds) for (const r of created.rows) this.createdIds.push(r.id);
      emitAfterResponse(this.ctx, created.rows.map((r, i) => rowEvent("row.created", this.table, r.id, Object.keys(created.written[i] ?? {}))));
    });
    // Surfaced by the next push or flush; until then it must not count as unhandled.
    this.pending.catch(() => undefined);
  }

  flush() {
    return this.pending;
  }
}

/** Removes the rows an atomic import wrote before one of its chunks failed (they were never answered for). */
async function undoRows(ctx: ServiceContext, tableId: string, rowIds: readonly string[]) {
  for (let i = 0; i < rowIds.length; i += 5000) {
    const ids = rowIds.slice(i, i + 5000);
    await ctx.db.batch([
      ctx.db.delete(cells).where(and(eq(cells.tableId, tableId), inJson(cells.rowId, ids))),
      ctx.db.delete(rows).where(and(eq(rows.tableId, tableId), inJson(rows.id, ids))),
    ]);
  }
}

export async function importCsv(ctx: ServiceContext, input: CsvImportInput): Promise<CsvImportResult> {
  const [[tableRow], live] = await read(ctx, [tableAccessStatement(ctx.db, ctx.user.ref, input.tableId), liveColumnsQuery(ctx.db, input.tableId)]);
  const { table } = checkTableAccess(tableRow, "write");
  const reader = new RecordReader(input.body, input);
  try {
    const headers = checkHeader(await reader.next());
    const sample: Record_[] = [];
    while (sample.length < SAMPLE_ROWS) {
      const rec = await reader.next();
      if (!rec) break;
      sample.push(rec);
    }
    const targets = matchTargets(table, headers, live, sample, input.types);
    const problems: RowProblem[] = [];
    let failed = 0;
    const report = (ps: RowProblem[]) => {
      failed += 1;
      for (const p of ps) if (problems.length < MAX_REPORTED_ERRORS) problems.push(p);
    };
    let seen = 0;
    const tooMany = (rec: Record_) => {
      seen += 1;
      if (seen <= MAX_CSV_ROWS) return false;
      report([{ line: rec.info.lines, message: `an import has at most ${MAX_CSV_ROWS} rows; this row and the rest were not read` }]);
      return true;
    };

    if (input.mode === "atomic") {
      const valid: (unknown | undefined)[][] = [];
      const take = (rec: Record_) => {
        const out = convertRecord(targets, rec);
        if ("values" in out) valid.push(out.values);
        else report(out.problems);
      };
      let stopped = false;
      for (const rec of sample) if (!stopped && !(stopped = tooMany(rec))) take(rec);
      for (let rec = stopped ? null : await reader.next(); rec; rec = await reader.next()) {
        if (tooMany(rec)) break;
        take(rec);
      }
      if (failed > 0) throw problemsError(`${failed} row(s) cannot be imported; nothing was written (first at line ${problems[0]!.line})`, problems);
      await createTargets(ctx, table, targets);
      const writer = new Writer(ctx, table, targets, true);
      try {
        for (let i = 0; i < valid.length; i += CHUNK_ROWS) await writer.push(valid.slice(i, i + CHUNK_ROWS));
        await writer.flush();
      } catch (err) {
        await writer.flush().catch(() => undefined);
        await undoRows(ctx, table.id, writer.createdIds);
        throw err;
      }
      return result(writer.imported, 0, [], targets);
    }

    await createTargets(ctx, table, targets);
    const writer = new Writer(ctx, table, targets, false);
    let batch: (unknown | undefined)[][] = [];
    const take = async (rec: Record_) => {
      const out = convertRecord(targets, rec);
      if ("problems" in out) return report(out.problems);
      batch.push(out.values);
      if (batch.length >= CHUNK_ROWS) {
        const full = batch;
        batch = [];
        await writer.push(full);
      }
    };
    let stopped = false;
    for (const rec of sample) {
      if ((stopped = tooMany(rec))) break;
      await take(rec);
    }
    for (let rec = stopped ? null : await reader.next(); rec; rec = await reader.next()) {
      if (tooMany(rec)) break;
      await take(rec);
    }
    if (batch.length) await writer.push(batch);
    await writer.flush();
    // Records the parser itself could not read (a stray quote) are problems of their lines too.
    for (const p of reader.skipped) report([p]);
    problems.sort((a, b) => a.line - b.line);
    return result(writer.imported, failed, problems, targets);
  } finally {
    reader.cancel();
  }
}

function result(imported: number, failed: number, errors: RowProblem[], targets: Target[]): CsvImportResult {
  return {
    imported,
    failed,
    errors,
    columns: targets.map((t) => ({
      header: t.header,
      columnId: t.column ? t.column.column.id : null,
      type: t.type,
      created: t.created,
      ignored: t.column === null,
    })),
  };
}
