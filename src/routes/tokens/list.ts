import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, type Router } from "../../openapi";
import { listTokens } from "../../services/identity/tokens";
import { TokenInfoSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listTokens",
  auth: "batched",
  method: "get",
  path: "/token/all",
  tags: ["Identity"],
  summary: "List the caller's tokens (without secrets)",
  responses: { ...okData(z.array(TokenInfoSchema)), ...errorResponses() },
});

export function registerListTokens(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listTokens(ctxOf(c)) }, 200));
}
