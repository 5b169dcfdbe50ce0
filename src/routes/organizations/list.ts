import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { eq } from "drizzle-orm";
import { errorResponses, okData, security, type Router } from "../../openapi";
import { organizationMembers, organizations } from "../../db/schema";
import { organizationDto } from "../../services/identity/users";
import { OrganizationSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listOrganizations",
  method: "get",
  path: "/organization/all",
  tags: ["Organizations"],
  summary: "Organizations the caller belongs to, with the caller's role",
  security,
  responses: { ...okData(z.array(OrganizationSchema)), ...errorResponses() },
});

export function registerListOrganizations(app: Router) {
  app.openapi(route, async (c) => {
    const rows = await c
      .get("db")
      .select({ org: organizations, role: organizationMembers.role })
      .from(organizationMembers)
      .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
      .where(eq(organizationMembers.userId, c.get("user")._id))
      .orderBy(organizations.createdAt);
    return c.json({ data: rows.map((r) => organizationDto(r.org, r.role)) }, 200);
  });
}
