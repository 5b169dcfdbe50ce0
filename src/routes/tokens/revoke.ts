import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { and, eq } from "drizzle-orm";
import { notFound } from "../../errors";
import { errorResponses, okData, pathId, security, type Router } from "../../openapi";
import { accessTokens } from "../../db/schema";

const route = defineRoute({
  operationId: "revokeToken",
  method: "delete",
  path: "/token/{tokenId}",
  tags: ["Identity"],
  summary: "Revoke a token at once",
  security,
  request: { params: z.object({ tokenId: pathId("tokenId") }) },
  responses: { ...okData(z.object({ success: z.literal(true) })), ...errorResponses() },
});

export function registerRevokeToken(app: Router) {
  app.openapi(route, async (c) => {
    const { tokenId } = c.req.valid("param");
    const rows = await c
      .get("db")
      .delete(accessTokens)
      .where(and(eq(accessTokens.id, tokenId), eq(accessTokens.userId, c.get("user")._id)))
      .returning({ id: accessTokens.id });
    if (rows.length === 0) throw notFound("Token");
    return c.json({ data: { success: true as const } }, 200);
  });
}
