-- The formula engine reads a page of rows' input cells as one range scan per column, (column_id, row_id) in row
-- order, instead of two index lookups per row and column (src/services/formula/store.ts, readRowPage).
-- It replaces the (column_id) index, which it extends, so a cell write still maintains the same number of indexes.
DROP INDEX `cells_column_idx`;--> statement-breakpoint
CREATE INDEX `cells_column_row_idx` ON `cells` (`column_id`,`row_id`);