import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, ignored, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { createOrganization } from "../../services/organizations/organizations";
import { OrganizationSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createOrganization",
  method: "post",
  path: "/organization",
  shard: "new-organization",
  // Its service needs the caller before its first read (or writes first): authenticated on its own, one round trip.
  auth: "token",
  tags: ["Organizations"],
  summary: "Create an organization (the caller becomes its owner)",
  description: "Creates the organization with the caller as its owner and answers the new record.",
  request: jsonBody(
    z.strictObject({ name: NameSchema, ...ignored("_id", "ownerId", "role", "createdAt", "updatedAt") }),
  ),
  responses: { ...okData(OrganizationSchema), ...errorResponses() },
});

export function registerCreateOrganization(app: Router) {
  app.openapi(route, async (c) =>
    c.json({ data: await createOrganization(ctxOf(c), { name: c.req.valid("json").name }) }, 200),
  );
}
