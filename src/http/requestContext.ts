/**
 * The service context of a request (src/services/context.ts): made on first use, anonymous until the route
 * authenticates its caller (src/http/routeAuth.ts), routed to its shard by the route's settings (src/http/route.ts).
 */
import type { Context } from "hono";
import type { HonoEnv } from "../env";
import { serviceContext, type ServiceContext } from "../services/context";
import { auditAddress } from "./clientAddress";

/** The service context of this request. */
export function ctxOf(c: Context<HonoEnv>): ServiceContext {
  const existing = c.get("ctx");
  if (existing) return existing;
  // Anonymous (a reader of public things) until the route authenticates its caller (actingAs makes a new context).
  const ctx = serviceContext(
    c.env,
    c.get("dir"),
    { type: "reader" },
    {
      waitUntil: (p) => c.executionCtx.waitUntil(p),
      database: c.get("database"),
      clientAddress: auditAddress(c.req.raw.headers, c.env),
    },
  );
  c.set("ctx", ctx);
  return ctx;
}
