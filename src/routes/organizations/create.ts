import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { errorResponses, ignored, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { organizationMembers, organizations } from "../../db/schema";
import { newId, now } from "../../lib/ids";
import { organizationDto } from "../../services/identity/users";
import { OrganizationSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createOrganization",
  method: "post",
  path: "/organization",
  tags: ["Organizations"],
  summary: "Create an organization (the caller becomes its owner)",
  security,
  request: jsonBody(z.strictObject({ name: NameSchema, ...ignored("_id", "ownerId", "role", "createdAt", "updatedAt") })),
  responses: { ...okData(OrganizationSchema), ...errorResponses() },
});

export function registerCreateOrganization(app: Router) {
  app.openapi(route, async (c) => {
    const db = c.get("db");
    const user = c.get("user");
    const t = now();
    const org = { id: newId(), name: c.req.valid("json").name, ownerId: user._id, createdAt: t, updatedAt: t };
    await db.batch([
      db.insert(organizations).values(org),
      db.insert(organizationMembers).values({ organizationId: org.id, userId: user._id, role: "owner", createdAt: t }),
    ]);
    return c.json({ data: organizationDto(org, "owner") }, 200);
  });
}
