import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, type Router } from "../../openapi";
import { getMe } from "../../services/identity/me";
import { UserSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "getMe",
  auth: "batched",
  method: "get",
  path: "/me",
  shard: "directory",
  tags: ["Identity"],
  summary: "The authenticated user",
  description: "The user the bearer token belongs to.",
  responses: { ...okData(UserSchema), ...errorResponses() },
});

export function registerGetMe(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await getMe(ctxOf(c)) }, 200));
}
