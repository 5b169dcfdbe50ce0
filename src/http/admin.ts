/** The deployment admin's bearer token (ADMIN_TOKEN), for the bootstrap routes that run before any user exists. */
import type { MiddlewareHandler } from "hono";
import type { HonoEnv } from "../env";
import { ApiError } from "../errors";
import { readBearer, refuseCredential } from "../auth/authenticate";
import { clientAddress } from "./clientAddress";
import { timingSafeEqualStrings } from "../lib/crypto";
import { callerClaimStatements } from "../services/idempotency";
import { idempotencyRequest, runIdempotent, type OnReplay } from "./idempotency";
import { ctxOf } from "./route";

/** The caller an admin route's Idempotency-Key belongs to (never a generated user id: those are upper-case ULIDs). */
export const ADMIN_CALLER = "deployment-admin";

/**
 * Route middleware (declared with `use` on the route, so it runs before body validation: 401 before 400). On a POST it
 * then claims the Idempotency-Key (docs/api-guide.md › HTTP semantics: retries, caching, replicas) for the deployment
 * admin, as user routes do for their user; `onReplay` runs before a kept answer is sent again.
 */
export function adminTokenMiddleware(opts: { onReplay?: OnReplay } = {}): MiddlewareHandler<HonoEnv> {
  return async (c, next) => {
    const presented = readBearer(c.req.header("authorization"));
    const expected = c.env.ADMIN_TOKEN;
    const message = "This route needs the deployment's ADMIN_TOKEN as bearer token";
    if (!presented) throw new ApiError("UnauthorizedError", message);
    if (!expected || !(await timingSafeEqualStrings(presented, expected))) {
      // A wrong admin token is a failed authentication like any other: limited per client address.
      return refuseCredential({ env: c.env, address: clientAddress(c.req.raw.headers, c.env) }, message);
    }
    const claim = c.req.method === "POST" ? await idempotencyRequest(c) : null;
    if (!claim) return next();
    const ctx = ctxOf(c);
    const [, [record]] = await ctx.db.batch(callerClaimStatements(ctx.db, ADMIN_CALLER, claim, ctx.now, null));
    await runIdempotent(c, next, ctx, claim, record, ADMIN_CALLER, opts.onReplay);
  };
}

/** The admin token middleware of the admin routes whose replay needs nothing more. */
export const requireAdminToken: MiddlewareHandler<HonoEnv> = adminTokenMiddleware();
