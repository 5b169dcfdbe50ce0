import { z } from "@hono/zod-openapi";
import { ignored } from "../../openapi";

/** `{ [columnId]: value }` as a client writes it; values are checked per column type by the service. */
export const CellsInput = z.record(z.string(), z.unknown()).openapi("CellsInput", {
  description: "Values by column id; null leaves the cell empty. Computed columns (oneMany, formula) are 409.",
});

export const RowInput = z.strictObject({
  cells: CellsInput.optional(),
  ...ignored(
    "_id",
    "projectId",
    "tableId",
    "workspaceId",
    "ownerId",
    "originId",
    "createdAt",
    "updatedAt",
    "isDeleted",
  ),
});
