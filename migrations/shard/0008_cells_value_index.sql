CREATE INDEX `cells_column_value_idx` ON `cells` (`column_id`,json_extract("data", '$'),`row_id`) WHERE "cells"."is_deleted" = 0;
