import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { errorResponses, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { IdSchema } from "../../schemas/ids";
import { createToken, MAX_TOKEN_RESOURCES } from "../../services/identity/tokens";
import { ALL_SCOPES, type Scope } from "../../auth/scopes";
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
    "The secret is shown only in this response; only its SHA-256 hash is stored. A token issued with an expiring token expires no later than it. " +
    "`scopes` and `resources` make a scoped token (docs/api-guide.md › Tokens and scopes): its rights are the intersection of its scopes, its resources and its user's rights; " +
    "a scoped token issues only tokens within its own scopes and resources. A resource the caller cannot read is 400.",
  request: jsonBody(
    z.strictObject({
      name: NameSchema,
      expiresAt: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).nullable().optional(),
      scopes: z
        .array(z.enum(ALL_SCOPES as [Scope, ...Scope[]]))
        .min(1)
        .max(ALL_SCOPES.length)
        .optional()
        .openapi({
          description:
            "`<family>:read` or `<family>:write` (write implies read) over documents, tables, automations, portals, members, changes, comments, and `admin`. Without it the token has its user's full rights.",
        }),
      resources: z.array(IdSchema).min(1).max(MAX_TOKEN_RESOURCES).optional().openapi({
        description:
          "Organization, workspace or project ids (ones the caller can read) the token is limited to; a record outside them is 404.",
      }),
    }),
  ),
  responses: { ...okData(TokenSchema), ...errorResponses() },
});

export function registerCreateToken(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createToken(ctxOf(c), c.req.valid("json")) }, 200));
}
