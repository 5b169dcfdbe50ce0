import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { createToken } from "../../services/identity/tokens";
import { TokenSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createToken",
  // Eager authentication: the new token's expiry is bounded by the caller's, known before the insert.
  method: "post",
  path: "/token",
  shard: "directory",
  // Its service needs the caller before its first read (or writes first): authenticated on its own, one round trip.
  auth: "token",
  tags: ["Identity"],
  summary: "Issue a personal access token",
  description:
    "The secret is shown only in this response; only its SHA-256 hash is stored. A token issued with an expiring token expires no later than it.",
  request: jsonBody(
    z.strictObject({
      name: NameSchema,
      expiresAt: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
    }),
  ),
  responses: { ...okData(TokenSchema), ...errorResponses() },
});

export function registerCreateToken(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createToken(ctxOf(c), c.req.valid("json")) }, 200));
}
