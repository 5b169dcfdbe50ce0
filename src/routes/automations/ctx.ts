import type { Context } from "hono";
import type { HonoEnv } from "../../env";
import type { ServiceCtx } from "../../services/automations/context";

/** The service context of this request (until src/http/route.ts provides the shared one). */
export function serviceCtx(c: Context<HonoEnv>): ServiceCtx {
  return {
    db: c.get("db"),
    env: c.env,
    user: c.get("user"),
    now: Date.now(),
    waitUntil: (p) => c.executionCtx.waitUntil(p),
  };
}
