-- Staged CSV import rows by age (src/services/tableCsv/stage.ts, sweep.ts): rows an import wrote hidden
-- (is_deleted = 1, origin_id = its marker) and an isolate that died never committed are found without a scan.
CREATE INDEX `rows_staged_idx` ON `rows` (`created_at`) WHERE "rows"."is_deleted" = 1 AND "rows"."origin_id" LIKE 'csv-import:%';