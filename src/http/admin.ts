/** The deployment admin's bearer token (ADMIN_TOKEN), for the bootstrap routes that run before any user exists. */
import type { MiddlewareHandler } from "hono";
import type { HonoEnv } from "../env";
import { ApiError } from "../errors";
import { readBearer } from "../auth/authenticate";
import { timingSafeEqualStrings } from "../lib/crypto";

/** Route middleware (declared with `use` on the route, so it runs before body validation: 401 before 400). */
export const requireAdminToken: MiddlewareHandler<HonoEnv> = async (c, next) => {
  const presented = readBearer(c.req.header("authorization"));
  const expected = c.env.ADMIN_TOKEN;
  if (!presented || !expected || !(await timingSafeEqualStrings(presented, expected))) {
    throw new ApiError("UnauthorizedError", "This route needs the deployment's ADMIN_TOKEN as bearer token");
  }
  await next();
};
