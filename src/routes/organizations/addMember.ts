import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { conflict, notFound, forbidden } from "../../errors";
import { EmailSchema, errorResponses, jsonBody, okData, pathId, security, type Router } from "../../openapi";
import { eq } from "drizzle-orm";
import { organizationMembers, organizations } from "../../db/schema";
import { now } from "../../lib/ids";
import { organizationRole } from "../../auth/access";
import { findUserByEmail } from "../../services/identity/users";

const MemberSchema = z.object({ organizationId: z.string(), userId: z.string(), role: z.enum(["owner", "admin", "member"]) }).openapi("OrganizationMember");

const route = defineRoute({
  operationId: "addOrganizationMember",
  method: "post",
  path: "/organization/{orgId}/member",
  tags: ["Organizations"],
  summary: "Add (or change the role of) a member by email",
  description: "Needs the organization owner or admin role; only an owner can make or change another owner; the organization owner's own role is fixed (409). The email must belong to a registered user.",
  security,
  request: {
    params: z.object({ orgId: pathId("orgId") }),
    ...jsonBody(z.strictObject({ email: EmailSchema, role: z.enum(["owner", "admin", "member"]).default("member") })),
  },
  responses: { ...okData(MemberSchema), ...errorResponses("ConflictError") },
});

export function registerAddOrganizationMember(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const { orgId } = c.req.valid("param");
    const { email, role } = c.req.valid("json");
    const callerRole = await organizationRole(db, c.get("user")._id, orgId);
    if (!callerRole) throw notFound("Organization");
    if (callerRole === "member") throw forbidden("Adding members needs the organization owner or admin role");
    if (role === "owner" && callerRole !== "owner") throw forbidden("Only an owner can add another owner");
    const target = await findUserByEmail(db, email);
    if (!target) throw notFound("User with this email");
    // Without these checks an admin could demote an owner, and anyone could leave the organization ownerless.
    const [org] = await db.select({ ownerId: organizations.ownerId }).from(organizations).where(eq(organizations.id, orgId));
    if (callerRole !== "owner" && (await organizationRole(db, target.id, orgId)) === "owner") throw forbidden("Only an owner can change another owner's role");
    if (target.id === org?.ownerId && role !== "owner") throw conflict("The organization owner's role cannot be changed");
    await db
      .insert(organizationMembers)
      .values({ organizationId: orgId, userId: target.id, role, createdAt: now() })
      .onConflictDoUpdate({ target: [organizationMembers.organizationId, organizationMembers.userId], set: { role } });
    return c.json({ data: { organizationId: orgId, userId: target.id, role } }, 200);
  });
}
