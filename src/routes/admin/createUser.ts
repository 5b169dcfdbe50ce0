import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { adminTokenMiddleware } from "../../http/admin";
import { errorResponses, EmailSchema, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { completeReplayedRegistration, createUser } from "../../services/identity/users";
import { OrganizationSchema, TokenSchema, UserSchema, WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createUser",
  // No user token: the deployment's ADMIN_TOKEN, checked before the body is validated.
  auth: "public",
  // A kept answer is replayed once the registration it names is complete (a request that died after the directory's
  // write left its shards' part to the retry): see completeReplayedRegistration.
  use: [adminTokenMiddleware({ onReplay: completeReplayedRegistration })],
  // Registration costs 2 (the writes, pending invitations); a keyed call adds its Idempotency-Key claim and the
  // stored response (no token batch to ride in): 4. Each pending invitation adds the read of its subtree. A replay
  // costs the claim and the read of the organization, plus the shards' part when it completes one: at most 4.
  roundTrips: 4,
  method: "post",
  path: "/admin/users",
  shard: "service",
  tags: ["Identity"],
  summary: "Register a user (deployment admin token)",
  description:
    "Creates the user, a personal organization with a default workspace, applies pending invitations and issues a first token.",
  security: [{ bearer: [] }],
  request: jsonBody(z.strictObject({ email: EmailSchema, name: NameSchema })),
  responses: {
    ...okData(
      z.object({ user: UserSchema, organization: OrganizationSchema, workspace: WorkspaceSchema, token: TokenSchema }),
    ),
    ...errorResponses("ConflictError"),
  },
});

export function registerCreateUser(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await createUser(ctxOf(c), c.req.valid("json")) }, 200));
}
