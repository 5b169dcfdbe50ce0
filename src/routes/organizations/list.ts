import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, type Router } from "../../openapi";
import { listOrganizations } from "../../services/organizations/organizations";
import { OrganizationSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listOrganizations",
  // The directory's index of memberships, in the token's batch (one round trip, the directory only).
  auth: "batched",
  method: "get",
  path: "/organization/all",
  shard: "directory",
  tags: ["Organizations"],
  summary: "Organizations the caller belongs to, with the caller's role",
  description: "Every organization the caller is a member of, each with the caller's role in it.",
  responses: { ...okData(z.array(OrganizationSchema)), ...errorResponses() },
});

export function registerListOrganizations(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listOrganizations(ctxOf(c)) }, 200));
}
