import { defineRoute } from "../../http/route";
import { z } from "@hono/zod-openapi";
import { ApiError } from "../../errors";
import { errorResponses, EmailSchema, jsonBody, NameSchema, okData, type Router } from "../../openapi";
import { readBearer } from "../../auth/authenticate";
import { timingSafeEqualStrings } from "../../lib/crypto";
import { registerUser } from "../../services/identity/users";
import { OrganizationSchema, TokenSchema, UserSchema, WorkspaceSchema } from "../../schemas/core";

const route = defineRoute({
  operationId: "createUser",
  auth: "public",
  method: "post",
  path: "/admin/users",
  tags: ["Identity"],
  summary: "Register a user (deployment admin token)",
  description: "Creates the user, a personal organization with a default workspace, applies pending invitations and issues a first token.",
  security: [{ bearer: [] }],
  request: jsonBody(z.strictObject({ email: EmailSchema, name: NameSchema })),
  responses: {
    ...okData(z.object({ user: UserSchema, organization: OrganizationSchema, workspace: WorkspaceSchema, token: TokenSchema })),
    ...errorResponses("ConflictError"),
  },
});

export function registerCreateUser(app: Router) {
  // The admin check must run before body validation (401 before 400), so it is middleware on the path.
  app.use(route.path, async (c, next) => {
    const presented = readBearer(c.req.header("authorization"));
    const expected = c.env.ADMIN_TOKEN;
    if (!presented || !expected || !(await timingSafeEqualStrings(presented, expected))) {
      throw new ApiError("UnauthorizedError", "This route needs the deployment's ADMIN_TOKEN as bearer token");
    }
    await next();
  });
  app.openapi(route, async (c) => {
    const result = await registerUser(c.get("db"), c.req.valid("json"));
    return c.json({ data: result }, 200);
  });
}
