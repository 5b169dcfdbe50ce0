import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/route";
import { requireAdminToken } from "../../http/admin";
import { errorResponses, okData, type Router } from "../../openapi";
import { dropOldShardCopy, LOGICAL_SHARDS, moveShard } from "../../services/shards/move";

const Logical = z.number().int().min(0).max(LOGICAL_SHARDS - 1).openapi({ description: `A logical shard, 0–${LOGICAL_SHARDS - 1}` });
const Binding = z.string().max(10).regex(/^SHARD_\d{1,4}$/).openapi({ description: "A shard database binding, e.g. SHARD_2" });

const move = defineRoute({
  operationId: "moveLogicalShard",
  auth: "public",
  use: [requireAdminToken],
  roundTrips: 1000,
  method: "post",
  path: "/admin/shards/move",
  shard: "service",
  tags: ["Identity"],
  summary: "Move a logical shard to another shard database while the service runs (deployment admin token)",
  description:
    "docs/scaling.md, \"Moving a logical shard\": the shard's organizations are read-only while their rows are copied (writes answer 503 with " +
    "Retry-After), the copy is verified table by table (row count and checksum), then the directory's placement switches and every Worker " +
    "sends the shard's requests to the new database. The old copy stays until POST /admin/shards/drop. `npm run shard:move` calls both. " +
    "409 when the shard is served by that database already, or when the copy does not verify (then nothing changed).",
  security: [{ bearer: [] }],
  request: { body: { content: { "application/json": { schema: z.object({ logical: Logical, to: Binding }) } }, required: true } },
  responses: {
    ...okData(
      z.object({
        logical: z.number().int(),
        from: z.string(),
        to: z.string(),
        rows: z.record(z.string(), z.number().int()),
        readOnlyMs: z.number().int(),
      }),
    ),
    ...errorResponses("UnauthorizedError", "RateLimitedError", "ConflictError"),
  },
});

const drop = defineRoute({
  operationId: "dropMovedShardCopy",
  auth: "public",
  use: [requireAdminToken],
  roundTrips: 1000,
  method: "post",
  path: "/admin/shards/drop",
  shard: "service",
  tags: ["Identity"],
  summary: "Delete the copy a finished shard move left in its old database (deployment admin token)",
  description:
    "After POST /admin/shards/move and a grace period (Workers that have not yet learned the switch read the old copy), deletes the logical " +
    "shard's rows from the database it left. 409 unless that database's fence says the shard moved away.",
  security: [{ bearer: [] }],
  request: { body: { content: { "application/json": { schema: z.object({ logical: Logical, from: Binding }) } }, required: true } },
  responses: {
    ...okData(z.object({ logical: z.number().int(), from: z.string(), rows: z.number().int() })),
    ...errorResponses("UnauthorizedError", "RateLimitedError", "ConflictError"),
  },
});

export function registerShardMoves(app: Router) {
  app.openapi(move, async (c) => c.json({ data: await moveShard(c.env, c.req.valid("json"), { now: Date.now() }) }, 200));
  app.openapi(drop, async (c) => c.json({ data: await dropOldShardCopy(c.env, c.req.valid("json")) }, 200));
}
