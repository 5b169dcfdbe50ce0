import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import { ctxOf, defineRoute } from "../../http/route";
import { fileBodyOf } from "../../http/upload";
import { ApiError, validation } from "../../errors";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { IMPORT_TYPES, type ImportType } from "../../services/tableCsv/convert";
import { importCsv } from "../../services/tableCsv/import";
import { CELLS_PER_BATCH, MAX_CSV_CELLS, MAX_CSV_ROWS, SAMPLE_ROWS } from "../../services/tableCsv/plan";
import { MAX_CSV_BYTES, MAX_REPORTED_ERRORS } from "../../services/tableCsv/records";

const TypesSchema = z.record(z.string().min(1).max(500), z.enum(IMPORT_TYPES));

const ImportResultSchema = z
  .object({
    imported: z.number().int().openapi({ description: "Rows written" }),
    failed: z.number().int().openapi({ description: "Rows not written because of a problem (partial mode)" }),
    errors: z
      .array(
        z
          .object({ line: z.number().int(), column: z.string().optional(), message: z.string() })
          .openapi("CsvRowProblem"),
      )
      .openapi({ description: `Problems by line of the file (at most ${MAX_REPORTED_ERRORS}, in line order)` }),
    columns: z.array(
      z
        .object({
          header: z.string(),
          columnId: z.string().nullable(),
          type: z.string().nullable(),
          created: z.boolean(),
          ignored: z.boolean().openapi({
            description: "A computed (formula or oneMany) column of the table: its values are not imported",
          }),
        })
        .openapi("CsvImportColumn"),
    ),
  })
  .openapi("CsvImportResult");

const route = defineRoute({
  operationId: "importTableCsv",
  // Authenticated before the body is touched, so a caller without a valid token never has a file read.
  auth: "token",
  // Token (with the Idempotency-Key claim), access and columns; a new column 2 and the columns read back 1; the rows
  // staged a batch per 5,000 cells, the last with the commit (rows live, answer kept); the answer: the budget is for
  // a small file that adds one column (docs/api-guide.md).
  roundTrips: 6,
  method: "post",
  path: "/table/{tableId}/import",
  tags: ["Rows"],
  summary: "Import rows from a CSV file",
  description:
    "The body is the CSV file itself (`text/csv`, streamed) or a `multipart/form-data` upload whose `file` part is the CSV. " +
    `At most ${MAX_CSV_BYTES / 1024 / 1024} MiB (413), ${MAX_CSV_ROWS} data rows and ${MAX_CSV_CELLS} cells (rows × imported columns; past it ` +
    "`atomic` is 413 and writes nothing, `partial` reports the first row past it and reads no further); rows are written " +
    `at most ${CELLS_PER_BATCH} cells at a time (fewer for wide rows). UTF-8 only: other bytes are 415. The first line names the columns: a live column with the same name ` +
    "(case-insensitive) or id receives the values; another name creates a column, typed by `types` or inferred from the first " +
    `${SAMPLE_ROWS} rows (number, checkbox, date, url, email, single select when values repeat, else text). Formula and oneMany ` +
    "columns are computed and their CSV columns are ignored. `mode=partial` (default) writes the valid rows and reports each bad row " +
    "by its line; `mode=atomic` writes nothing when any row has a problem and answers 422 with the lines. In both modes the rows stay " +
    "invisible until the whole file is read, then go live at once with the answer kept for `Idempotency-Key`. A file that cannot be read " +
    "as CSV (a quote never closed, no header, a repeated column name) is 422 with the line.",
  request: {
    params: z.object({ tableId: pathId("tableId") }),
    query: z.object({
      mode: z
        .enum(["partial", "atomic"])
        .default("partial")
        .openapi({ param: { name: "mode", in: "query" } }),
      types: z
        .string()
        .max(20_000)
        .optional()
        .openapi({
          param: { name: "types", in: "query" },
          description:
            'JSON object giving the type of columns the import creates, by header name: `{"Price":"number","Status":"select"}`',
        }),
      delimiter: z
        .enum([",", ";", "\t", "|"])
        .default(",")
        .openapi({ param: { name: "delimiter", in: "query" } }),
    }),
    body: {
      required: true,
      description: "The CSV file (UTF-8, RFC 4180), raw or as the `file` part of a form",
      content: {
        "text/csv": { schema: { type: "string", format: "binary", maxLength: MAX_CSV_BYTES } },
        "multipart/form-data": {
          schema: {
            type: "object",
            required: ["file"],
            properties: { file: { type: "string", format: "binary", maxLength: MAX_CSV_BYTES } },
          },
        },
      },
    },
  },
  responses: {
    ...okData(ImportResultSchema),
    ...errorResponses("PayloadTooLargeError", "UnsupportedMediaTypeError", "UnprocessableEntityError"),
  },
});

function parseTypes(raw: string | undefined): Record<string, ImportType> {
  if (raw === undefined) return {};
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw validation("types must be a JSON object", [{ path: "types", message: "not JSON" }]);
  }
  const parsed = TypesSchema.safeParse(json);
  if (!parsed.success) {
    throw validation(
      "types maps header names to column types",
      parsed.error.issues.slice(0, 20).map((i) => ({ path: ["types", ...i.path].join("."), message: i.message })),
    );
  }
  return parsed.data;
}

/** The CSV bytes: the raw body, or the `file` part of a multipart form; a body without Content-Length is counted as it streams. */
async function csvBodyOf(c: Context<HonoEnv>): Promise<ReadableStream<Uint8Array>> {
  const body = await fileBodyOf(c, {
    mediaTypes: ["text/csv", "text/plain", "application/csv"],
    limit: MAX_CSV_BYTES,
    what: "CSV",
  });
  if (!body)
    throw new ApiError("UnprocessableEntityError", "The CSV is empty: the first line names the columns", {
      details: [{ path: "line 1", message: "no header row", line: 1 }],
    });
  return body;
}

export function registerImportTableCsv(app: Router) {
  app.openapi(route, async (c) => {
    const { mode, types, delimiter } = c.req.valid("query");
    const body = await csvBodyOf(c);
    const result = await importCsv(ctxOf(c), {
      tableId: c.req.valid("param").tableId,
      body,
      mode,
      types: parseTypes(types),
      delimiter,
    });
    return c.json({ data: result }, 200);
  });
}
