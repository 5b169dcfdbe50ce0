import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { EmailSchema, errorResponses, IdSchemaBody, jsonBody, okData, pathId, type Router } from "../../openapi";
import { addOrganizationMember } from "../../services/organizations/organizations";

// The same answer whether the email has an account or becomes a pending invitation: no user id in it.
const MemberSchema = z
  .object({ organizationId: IdSchemaBody, email: z.email().max(320), role: z.enum(["owner", "admin", "member"]) })
  .openapi("OrganizationMember");

const route = defineRoute({
  operationId: "addOrganizationMember",
  // POST: eager authentication, so an Idempotency-Key is claimed in the token's batch (src/http/route.ts).
  method: "post",
  path: "/organization/{orgId}/member",
  tags: ["Organizations"],
  summary: "Add (or change the role of) a member by email",
  description:
    "Needs the organization owner or admin role; only an owner can make or change another owner; the organization owner's own role is fixed (409). A registered user becomes a member at once; an unregistered email gets a pending invitation, applied when it registers. The answer is the same either way. An organization holds at most 200 pending invitations (409 past that).",
  request: {
    params: z.object({ orgId: pathId("orgId") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["owner", "admin", "member"]).default("member") })),
  },
  responses: { ...okData(MemberSchema), ...errorResponses("ConflictError") },
});

export function registerAddOrganizationMember(app: Router) {
  app.openapi(route, async (c) =>
    c.json(
      {
        data: await addOrganizationMember(ctxOf(c), {
          organizationId: c.req.valid("param").orgId,
          ...c.req.valid("json"),
        }),
      },
      200,
    ),
  );
}
