-- Staged CSV imports by age (src/services/tableCsv/stage.ts, sweep.ts): rows and columns an import wrote hidden
-- (is_deleted = 1, origin_id = its marker) and an isolate that died never committed are found without a scan.
CREATE INDEX `columns_staged_idx` ON `columns` (`created_at`) WHERE "columns"."is_deleted" = 1 AND "columns"."origin_id" LIKE 'csv-import:%';--> statement-breakpoint
CREATE INDEX `rows_staged_idx` ON `rows` (`created_at`) WHERE "rows"."is_deleted" = 1 AND "rows"."origin_id" LIKE 'csv-import:%';