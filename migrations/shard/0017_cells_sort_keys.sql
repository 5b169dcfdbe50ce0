-- A live cell's stored value by column and row (docs/api-guide.md › Querying rows): a sorted query reads each
-- matching row's sort key, and an aggregate its group and metric values, from this index alone (INDEXED BY in
-- src/services/tables/query/sqlParts.ts) rather than from the cell's record. drizzle-kit writes the expression's
-- quoting wrongly when it is not the first member, so it is written here by hand, as in 0008.
CREATE INDEX `cells_column_row_value_idx` ON `cells` (`column_id`,`row_id`,json_extract("data", '$')) WHERE "cells"."is_deleted" = 0;
