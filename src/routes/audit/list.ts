import { defineRoute, ctxOf } from "../../http/route";
import { type Router, errorResponses, jsonResponse } from "../../openapi";
import { listAuditLog } from "../../services/audit/read";
import { AuditPageSchema, AuditParamsSchema, AuditQuerySchema } from "./schema";

const route = defineRoute({
  operationId: "listAuditLog",
  auth: "batched",
  method: "get",
  path: "/organization/{organizationId}/audit",
  tags: ["Changes"],
  summary: "The organization's audit log, newest first",
  description:
    "Owners and admins of the organization only (anyone else: 404). The organization's change-log entries and its audit entries (`member.*`, `share.*`, `portal.*`, `automation.*`, `webhook.*`, `token.*`) and security events (`portal.login_failed`, `export.*`, `download.*`, `admin.*`) with `clientAddress`, newest first; `nextCursor` (null on the last page) continues. Filters: `actor` (a user id), `kind` (`member.added` or `member.*`), `from` and `to` (milliseconds since the epoch, `to` excluded).",
  request: { params: AuditParamsSchema, query: AuditQuerySchema },
  responses: { 200: jsonResponse(AuditPageSchema), ...errorResponses() },
});

export function registerListAuditLog(app: Router) {
  app.openapi(route, async (c) =>
    c.json(await listAuditLog(ctxOf(c), { ...c.req.valid("param"), ...c.req.valid("query") }), 200),
  );
}
