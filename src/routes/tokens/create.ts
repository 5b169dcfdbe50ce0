import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { validation } from "../../errors";
import { errorResponses, jsonBody, NameSchema, okData, security, type Router } from "../../openapi";
import { prepareToken } from "../../services/identity/tokens";
import { TokenSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createToken",
  method: "post",
  path: "/token",
  tags: ["Identity"],
  summary: "Issue a personal access token",
  description: "The secret is shown only in this response; only its SHA-256 hash is stored. A token issued with an expiring token expires no later than it.",
  security,
  request: jsonBody(z.strictObject({ name: NameSchema, expiresAt: z.number().int().positive().max(8_640_000_000_000_000).nullable().optional() })),
  responses: { ...okData(TokenSchema), ...errorResponses() },
});

export function registerCreateToken(app: Router) {
  app.openapi(route, async (c) => {
    const { name, expiresAt } = c.req.valid("json");
    if (expiresAt != null && expiresAt <= Date.now()) throw validation("expiresAt must be in the future", [{ path: "expiresAt", message: "in the past" }]);
    const db = c.get("db");
    // A token cannot mint one that outlives it, or expiry could be escaped by re-issuing.
    const limit = c.get("user").tokenExpiresAt;
    const effective = limit === null ? (expiresAt ?? null) : Math.min(expiresAt ?? limit, limit);
    const { record, insert } = await prepareToken(db, c.get("user")._id, name, effective);
    await insert;
    return c.json({ data: record }, 200);
  });
}
