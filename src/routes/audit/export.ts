import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses } from "../../openapi";
import { binaryResponse } from "../../schemas/content";
import { exportAuditLog } from "../../services/audit/read";
import { AuditFilterSchema, AuditParamsSchema } from "./schema";

const route = defineRoute({
  operationId: "exportAuditLog",
  auth: "batched",
  // Access and the first page with authentication; one more per further page of 500 entries.
  roundTrips: 2,
  method: "get",
  path: "/organization/{organizationId}/audit/export",
  tags: ["Changes"],
  summary: "The organization's audit log as JSON Lines",
  description:
    "Owners and admins only (anyone else: 404). Every entry the filters select (as `GET …/audit` answers them), newest first, one JSON object a line, streamed page by page.",
  request: { params: AuditParamsSchema, query: AuditFilterSchema },
  responses: { 200: binaryResponse("application/x-ndjson", "JSON Lines: one audit entry a line"), ...errorResponses() },
});

export function registerExportAuditLog(app: Router) {
  app.openapi(route, async (c) => {
    const stream = await exportAuditLog(ctxOf(c), { ...c.req.valid("param"), ...c.req.valid("query") });
    return new Response(stream, {
      status: 200,
      headers: {
        "Content-Type": "application/x-ndjson; charset=utf-8",
        "Content-Disposition": 'attachment; filename="audit.jsonl"',
        "Cache-Control": "private, no-store",
      },
    }) as never;
  });
}
