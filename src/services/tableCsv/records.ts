/**
 * Reading a CSV import (docs/api-guide.md › CSV import and export): the body as it streams, counted (413 past the
 * byte limit), checked as UTF-8 (415 at the first byte that is not), parsed record by record (csv-parse), never
 * held whole. Also the header row and the shape of row problems, shared by the partial and atomic writers.
 */
import { Buffer } from "node:buffer";
import { CsvError, parse } from "csv-parse/stream";
import { ApiError, unprocessable, type ErrorDetail } from "../../errors";
import { unescapeFormulaText } from "./convert";

/** docs/api-guide.md › Limits: a CSV import body is at most 50 MiB. */
export const MAX_CSV_BYTES = 50 * 1024 * 1024;
export const MAX_CSV_COLUMNS = 200;
/** Characters of one record; a longer one ends the reading of the file (csv-parse cannot resume after it). */
export const MAX_RECORD_CHARS = 1_000_000;
/** Row problems listed in a response (the count covers them all). */
export const MAX_REPORTED_ERRORS = 1000;

export interface RowProblem {
  line: number;
  column?: string;
  message: string;
}

export interface CsvRecord {
  record: string[];
  info: { lines: number };
}

/** A byte counter in front of the parser: 413 past the limit, whatever Content-Length said. */
function limitBytes(limit: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > limit)
        throw new ApiError(
          "PayloadTooLargeError",
          `A CSV import is limited to ${limit} bytes (docs/api-guide.md › Limits)`,
        );
      controller.enqueue(chunk);
    },
  });
}

/**
 * 415 at the first byte sequence that is not UTF-8 (as the Markdown import): csv-parse would otherwise decode it
 * to U+FFFD and store the damage silently. The bytes pass on unchanged; the decoder only checks them.
 */
function requireUtf8(): TransformStream<Uint8Array, Buffer> {
  const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
  const refuse = () =>
    new ApiError("UnsupportedMediaTypeError", "The CSV is not UTF-8: save it as UTF-8 and import it again");
  return new TransformStream({
    transform(chunk, controller) {
      try {
        decoder.decode(chunk, { stream: true });
      } catch {
        throw refuse();
      }
      controller.enqueue(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    },
    flush() {
      try {
        decoder.decode();
      } catch {
        throw refuse();
      }
    },
  });
}

/** The CSV parser's own complaint (an unclosed quote…) as a row problem on its line. */
function csvProblem(err: unknown): RowProblem | null {
  if (err instanceof CsvError) {
    const line = Number((err as unknown as { lines?: number }).lines) || 1;
    if (err.code === "CSV_MAX_RECORD_SIZE")
      return {
        line,
        message: `the record is longer than ${MAX_RECORD_CHARS} characters; it and the rest of the file were not read`,
      };
    return { line, message: err.message.replace(/^[^:]*:\s*/, "") };
  }
  return null;
}

export function problemsError(message: string, problems: readonly RowProblem[]): ApiError {
  const details: ErrorDetail[] = problems.slice(0, MAX_REPORTED_ERRORS).map((p) => ({
    path: p.column === undefined ? `line ${p.line}` : `line ${p.line}.${p.column}`,
    message: p.message,
    line: p.line,
  }));
  return unprocessable(message, details);
}

/** Reads records one at a time, so the header and the sample can be taken before the rest streams. */
export class RecordReader {
  private reader: ReadableStreamDefaultReader<CsvRecord>;
  /** Records the parser could not read, one problem each (partial mode skips them). */
  skipped: RowProblem[] = [];
  /** An over-long record was met: csv-parse reads nothing after it, so neither do we. */
  private ended = false;

  constructor(body: ReadableStream<Uint8Array>, input: { delimiter: string; skipBadRecords: boolean }) {
    const parser = parse({
      bom: true,
      delimiter: input.delimiter,
      relax_column_count: true,
      skip_empty_lines: true,
      info: true,
      max_record_size: MAX_RECORD_CHARS,
      skip_records_with_error: input.skipBadRecords,
      on_skip: (err: CsvError | undefined) => {
        // csv-parse reports an over-long record again for every chunk that follows it: one problem, then stop.
        if (this.ended) return;
        const p = err ? csvProblem(err) : null;
        if (p) this.skipped.push(p);
        if (err?.code === "CSV_MAX_RECORD_SIZE") this.ended = true;
      },
    } as Parameters<typeof parse>[0]);
    this.reader = body
      .pipeThrough(limitBytes(MAX_CSV_BYTES))
      .pipeThrough(requireUtf8())
      .pipeThrough(parser as unknown as TransformStream<Buffer, CsvRecord>)
      .getReader();
  }

  async next(): Promise<CsvRecord | null> {
    if (this.ended) return null;
    try {
      const { done, value } = await this.reader.read();
      return done || this.ended ? null : value;
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

/** The header row: names trimmed (a leading `'` the export added against CSV injection taken off), none empty or repeated (422 on line 1). */
export function checkHeader(first: CsvRecord | null): string[] {
  if (!first)
    throw problemsError("The CSV is empty: the first line names the columns", [{ line: 1, message: "no header row" }]);
  const names = first.record.map((h) => unescapeFormulaText(h.trim()));
  const line = first.info.lines;
  if (names.length > MAX_CSV_COLUMNS)
    throw problemsError(`At most ${MAX_CSV_COLUMNS} columns`, [{ line, message: `${names.length} columns` }]);
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
