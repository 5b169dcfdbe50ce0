import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { desc, eq } from "drizzle-orm";
import { errorResponses, okData, security, type Router } from "../../openapi";
import { accessTokens } from "../../db/schema";
import { tokenDto } from "../../services/identity/tokens";
import { TokenInfoSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "listTokens",
  method: "get",
  path: "/token/all",
  tags: ["Identity"],
  summary: "List the caller's tokens (without secrets)",
  security,
  responses: { ...okData(z.array(TokenInfoSchema)), ...errorResponses() },
});

export function registerListTokens(app: Router) {
  app.openapi(route, async (c) => {
    const rows = await c.get("db").select().from(accessTokens).where(eq(accessTokens.userId, c.get("user")._id)).orderBy(desc(accessTokens.createdAt));
    return c.json({ data: rows.map(tokenDto) }, 200);
  });
}
