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
  shard: "directory",
  tags: ["Identity"],
  summary: "List the caller's tokens (without secrets)",
  description:
    "Every token the caller holds, with its name, creation time, expiry and last use; a token's secret is shown only once, by POST /token.",
  responses: { ...okData(z.array(TokenInfoSchema)), ...errorResponses() },
});

export function registerListTokens(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await listTokens(ctxOf(c)) }, 200));
}
