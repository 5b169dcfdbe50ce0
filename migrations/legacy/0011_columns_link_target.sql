-- Which tables' lookups read a table (src/services/formula/store.ts, DEPENDENT_TABLES) is asked on every row
-- write; it read every column of the database to find the relations linking to the table. This partial index
-- on the linked table's id of live relations makes it an indexed read, and follows every change of a relation
-- (re-pointed, deleted) by itself. Written by hand: drizzle-kit splits the expression at its comma.
CREATE INDEX `columns_link_target_idx` ON `columns` (json_extract(`data`, '$.oneMany.tableId')) WHERE `is_deleted` = 0 AND json_extract(`data`, '$.type') = 'oneMany';
