import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, okData, pathId, type Router } from "../../openapi";
import { revokeToken } from "../../services/identity/tokens";

const route = defineRoute({
  operationId: "revokeToken",
  method: "delete",
  path: "/token/{tokenId}",
  shard: "directory",
  tags: ["Identity"],
  summary: "Revoke a token at once",
  description:
    "The token stops authenticating with the next request. Only the caller's own tokens can be revoked; another user's token id is 404.",
  request: { params: z.object({ tokenId: pathId("tokenId") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerRevokeToken(app: Router) {
  app.openapi(route, async (c) => {
    await revokeToken(ctxOf(c), c.req.valid("param"));
    return c.json({ data: { success: true as const } }, 200);
  });
}
