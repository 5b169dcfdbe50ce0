/**
 * GET /table/{tableId}/export.csv (docs/api-guide.md › CSV import and export): every live row of a table as RFC
 * 4180 CSV (CRLF line ends, fields quoted when they hold a comma, quote or line break), streamed a page at a
 * time through the same listing as GET /table/{tableId}/rows, so memory stays flat however many rows there are.
 * Values are written as the import reads them back: select items by label, dates as ISO 8601, formula cells as
 * their computed values; text a spreadsheet would run as a formula starts with `'` unless `keepFormulas`.
 */
import { stringify } from "csv-stringify/sync";
import { checkTableAccess, tableAccessStatement } from "../../auth/tableAccess";
import { read, type ServiceContext } from "../context";
import { liveColumnsQuery } from "../tables/columns";
import { MAX_PAGE_SIZE, readRowsPage, type RowsPage } from "../tables/rowReads";
import { columnDto, type ColumnRow, type TableRow } from "../tables/serialize";
import { escapeFormulaText, exportFormatter } from "./convert";
import { recordReadEvent } from "../audit/log";

export type CsvHeader = "name" | "id";

export interface CsvExport {
  table: TableRow;
  body: ReadableStream<Uint8Array>;
}

/** CRLF record ends; a field holding any line break (a bare LF too, which csv-stringify leaves alone once records end in CRLF) is quoted. */
const STRINGIFY_OPTIONS = { record_delimiter: "windows", quoted_match: /[\r\n]/ } as const;

/**
 * Access and the columns with authentication (one round trip), then the first page before answering (so a
 * failure is still an error status); later pages are read as the client consumes the stream, the next one
 * fetched while the current one is written.
 */
export async function exportCsv(
  ctx: ServiceContext,
  input: { tableId: string; header: CsvHeader; keepFormulas?: boolean },
): Promise<CsvExport> {
  const [[tableRow], columnList] = await read(ctx, [
    tableAccessStatement(ctx.db, ctx.user.ref, input.tableId),
    liveColumnsQuery(ctx.db, input.tableId),
  ]);
  const { table } = checkTableAccess(tableRow, "read");
  recordReadEvent(ctx, "export.csv", table);
  const columns: ColumnRow[] = columnList;
  const formatters = columns.map((c) =>
    exportFormatter(
      c,
      c.data.type === "formula" ? columnDto(c, columns).formula?.resultType : undefined,
      input.keepFormulas,
    ),
  );
  const fetchPage = (cursor?: string) => {
    const page = readRowsPage(ctx, { table, limit: MAX_PAGE_SIZE, cursor });
    // Awaited by the next pull; a client that stops reading first must not leave it an unhandled rejection.
    page.catch(() => undefined);
    return page;
  };
  let next: Promise<RowsPage> | null = fetchPage();
  await next;
  const encoder = new TextEncoder();
  let headerSent = false;

  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        // A table whose columns are all empty still has a header line (RFC 4180 allows one header record).
        // Header names are text a spreadsheet runs like any field (CSV injection): escaped the same way.
        const names = columns.map((c) =>
          input.header === "id" ? c.id : input.keepFormulas ? c.name : escapeFormulaText(c.name),
        );
        controller.enqueue(encoder.encode(stringify([names], STRINGIFY_OPTIONS)));
        return;
      }
      if (!next) {
        controller.close();
        return;
      }
      const page = await next;
      // Fetch the following page while this one is written out.
      next = page.nextCursor ? fetchPage(page.nextCursor) : null;
      if (page.data.length === 0) return;
      const records = page.data.map((r) => columns.map((c, i) => formatters[i]!(r.cells[c.id])));
      controller.enqueue(encoder.encode(stringify(records, STRINGIFY_OPTIONS)));
    },
    cancel() {
      next = null;
    },
  });
  return { table, body };
}
