/** Views' request and response schemas (docs/api-guide.md › Views and aggregates). */
import { z } from "@hono/zod-openapi";
import { ignored, NameSchema } from "../../openapi";
import { QueryWarningSchema } from "../../schemas/tables";
import { FilterSchema } from "../rows/querySchema";

const SortKey = z.strictObject({
  columnId: z.string().min(1).max(64),
  direction: z.enum(["asc", "desc"]).default("asc"),
});
const ColumnIds = z.array(z.string().min(1).max(64)).max(1000);

export const ViewSchema = z
  .object({
    _id: z.string(),
    tableId: z.string(),
    projectId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    name: z.string(),
    filter: z.unknown(),
    sort: z.array(z.object({ columnId: z.string(), direction: z.enum(["asc", "desc"]) })),
    fields: z.array(z.string()).nullable(),
    hidden: z.array(z.string()),
    createdAt: z.number(),
    updatedAt: z.number(),
    warnings: z.array(QueryWarningSchema),
  })
  .openapi("View");

const members = {
  filter: FilterSchema.nullable().optional(),
  sort: z.array(SortKey).max(5).optional(),
  fields: ColumnIds.nullable().optional(),
  hidden: ColumnIds.optional(),
  ...ignored("_id", "tableId", "projectId", "workspaceId", "userId", "createdAt", "updatedAt", "warnings"),
};

export const ViewCreateInput = z.strictObject({ name: NameSchema, ...members }).openapi("ViewInput");
export const ViewUpdateInput = z.strictObject({ name: NameSchema.optional(), ...members }).openapi("ViewUpdate");

/** Only the members a client may set (ignored ones dropped). */
export function viewMembers(body: z.infer<typeof ViewUpdateInput>) {
  const { name, filter, sort, fields, hidden } = body;
  return Object.fromEntries(
    Object.entries({ name, filter, sort, fields, hidden }).filter(([, v]) => v !== undefined),
  ) as {
    name?: string;
    filter?: unknown;
    sort?: { columnId: string; direction: "asc" | "desc" }[];
    fields?: string[] | null;
    hidden?: string[];
  };
}
