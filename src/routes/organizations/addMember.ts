import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { EmailSchema, errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { addOrganizationMember } from "../../services/organizations/organizations";

const MemberSchema = z.object({ organizationId: z.string(), userId: z.string(), role: z.enum(["owner", "admin", "member"]) }).openapi("OrganizationMember");

const route = defineRoute({
  operationId: "addOrganizationMember",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/organization/{orgId}/member",
  tags: ["Organizations"],
  summary: "Add (or change the role of) a member by email",
  description: "Needs the organization owner or admin role; only an owner can make or change another owner; the organization owner's own role is fixed (409). The email must belong to a registered user.",
  request: {
    params: z.object({ orgId: pathId("orgId") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["owner", "admin", "member"]).default("member") })),
  },
  responses: { ...okData(MemberSchema), ...errorResponses("ConflictError") },
});

export function registerAddOrganizationMember(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await addOrganizationMember(ctxOf(c), { organizationId: c.req.valid("param").orgId, ...c.req.valid("json") }) }, 200));
}
