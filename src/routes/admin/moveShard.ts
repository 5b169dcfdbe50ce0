import { z } from "@hono/zod-openapi";
import { ctxOf, defineRoute } from "../../http/route";
import { recordShardCopyDropped, recordShardMoveAborted, recordShardMoved } from "../../services/audit/admin";
import { requireAdminToken } from "../../http/admin";
import { errorResponses, okData, type Router } from "../../openapi";
import {
  abortShardMove,
  bindingAt,
  DEFAULT_STEP_CALLS,
  dropOldShardCopy,
  LOGICAL_SHARDS,
  MAX_PAGE_ROWS,
  MAX_STEP_CALLS,
  MIN_STEP_CALLS,
  moveShardStep,
} from "../../tenancy";

const Logical = z
  .number()
  .int()
  .min(0)
  .max(LOGICAL_SHARDS - 1)
  .openapi({ description: `A logical shard, 0–${LOGICAL_SHARDS - 1}` });
const Binding = z
  .string()
  .max(10)
  .regex(/^SHARD_\d{1,4}$/)
  .openapi({ description: "A shard database binding, e.g. SHARD_2" });

const MaxCalls = z
  .number()
  .int()
  .min(MIN_STEP_CALLS)
  .max(MAX_STEP_CALLS)
  .optional()
  .openapi({ description: `D1 calls this step may make, about (default ${DEFAULT_STEP_CALLS})` });

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
    'docs/scaling.md, "Moving a logical shard": the shard\'s organizations are read-only while their rows are copied (writes answer 503 with ' +
    "Retry-After), the copy is verified table by table (row count and checksum), then the directory's placement switches and every Worker " +
    "sends the shard's requests to the new database. The old copy stays until POST /admin/shards/drop. `npm run shard:move` calls both. " +
    "409 when the shard is served by that database already, or when the copy does not verify: then the shard is writable again where it " +
    "was, and what was copied stays fenced off in the target until POST /admin/shards/abort (called until `done`) deletes it. " +
    "A move runs in steps of at most `maxCalls` D1 calls each: a step that does not finish the move answers `done: false` with a " +
    "`cursor`, which the next call passes back (with the same `logical` and `to`) until an answer has `done: true` and the summary. " +
    "The shard stays read-only from the first step to the last. A cursor this route did not return is 400; one whose move is no " +
    "longer under way (it stopped, or its copy did not verify) is 409.",
  security: [{ bearer: [] }],
  request: {
    body: {
      content: {
        "application/json": {
          schema: z.object({
            logical: Logical,
            to: Binding,
            cursor: z
              .string()
              .min(1)
              .max(4096)
              .optional()
              .openapi({ description: "The `cursor` of the previous step's answer; none to start the move" }),
            maxCalls: MaxCalls,
            pageRows: z
              .number()
              .int()
              .min(1)
              .max(MAX_PAGE_ROWS)
              .optional()
              .openapi({ description: `Rows per page read and written (default ${MAX_PAGE_ROWS})` }),
          }),
        },
      },
      required: true,
    },
  },
  responses: {
    ...okData(
      z.union([
        z.object({
          done: z.literal(true),
          logical: z.number().int(),
          from: z.string(),
          to: z.string(),
          rows: z.record(z.string(), z.number().int()),
          readOnlyMs: z.number().int(),
        }),
        z.object({
          done: z.literal(false),
          cursor: z.string(),
          progress: z.object({
            phase: z.enum(["clean", "referenced", "copy", "clear-search", "verify", "switch"]),
            table: z.string(),
            tableIndex: z.number().int(),
            tables: z.number().int(),
            rowsCopied: z.number().int(),
            rowsVerified: z.number().int(),
          }),
        }),
      ]),
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
    "shard's rows from the database it left, at most about `maxCalls` D1 calls per call: `done: false` asks for another call (an old copy " +
    "too large for one invocation goes over several; `npm run shard:move` repeats it). 409 unless that database's fence says the shard moved away. " +
    "The call that finishes it (`done: true`) records `admin.shard_copy_dropped` in the audit log of each organization of the shard.",
  security: [{ bearer: [] }],
  request: {
    body: {
      content: { "application/json": { schema: z.object({ logical: Logical, from: Binding, maxCalls: MaxCalls }) } },
      required: true,
    },
  },
  responses: {
    ...okData(z.object({ logical: z.number().int(), from: z.string(), rows: z.number().int(), done: z.boolean() })),
    ...errorResponses("UnauthorizedError", "RateLimitedError", "ConflictError"),
  },
});

const abort = defineRoute({
  operationId: "abortLogicalShardMove",
  auth: "public",
  use: [requireAdminToken],
  roundTrips: 1000,
  method: "post",
  path: "/admin/shards/abort",
  shard: "service",
  tags: ["Identity"],
  summary: "Stop a logical shard's move and delete what it copied, in steps (deployment admin token)",
  description:
    'docs/scaling.md, "A move in steps". For a move whose command was interrupted, or that is given up: the shard\'s organizations are ' +
    "writable again at once, in the database they never left, and the move's cursor is refused from then on (`stopped: true`). For a move " +
    "that stopped on its own (a page of its copy differed: POST /admin/shards/move answered 409), there is nothing to stop. Either way the " +
    "copy the move made in its target (`to`) stays fenced off — no read counts it, no write reaches it — and is deleted, at most about " +
    "`maxCalls` D1 calls per call: `done: false` asks for another call naming the same `to` (`npm run shard:move` repeats it). Without " +
    "`to`, the target is found from the databases' fences. 409 when no move of the shard is under way and none left a copy to delete, or " +
    "when `to` holds no copy of a move from the database that serves the shard. The call that finishes it (`done: true`) records " +
    "`admin.shard_move_aborted` in the audit log of each organization of the shard.",
  security: [{ bearer: [] }],
  request: {
    body: {
      content: {
        "application/json": {
          schema: z.object({
            logical: Logical,
            to: Binding.optional().openapi({
              description: "The move's target database, as a previous answer named it; none to find it",
            }),
            maxCalls: MaxCalls,
          }),
        },
      },
      required: true,
    },
  },
  responses: {
    ...okData(
      z.object({
        logical: z.number().int(),
        from: z.string().openapi({ description: "The database that serves the shard (writable)" }),
        to: z.string().nullable().openapi({
          description:
            "The move's target, whose copy this call deleted from; null when the move stopped before it fenced a target (it had copied nothing)",
        }),
        stopped: z.boolean().openapi({ description: "Whether this call stopped a move that was under way" }),
        rows: z.number().int().openapi({ description: "Rows deleted from `to` by this call" }),
        done: z
          .boolean()
          .openapi({ description: "Whether no row of the shard is left in `to`; false asks for another call" }),
      }),
    ),
    ...errorResponses("UnauthorizedError", "RateLimitedError", "ConflictError"),
  },
});

export function registerShardMoves(app: Router) {
  app.openapi(abort, async (c) => {
    const data = await abortShardMove(c.env, c.req.valid("json"));
    await recordShardMoveAborted(ctxOf(c), { abort: data });
    return c.json({ data }, 200);
  });
  app.openapi(move, async (c) => {
    const data = await moveShardStep(c.env, c.req.valid("json"), { now: Date.now() });
    await recordShardMoved(ctxOf(c), { move: data });
    return c.json({ data }, 200);
  });
  app.openapi(drop, async (c) => {
    const data = await dropOldShardCopy(c.env, c.req.valid("json"));
    // The drop read the directory's placements: this isolate knows where the shard is served now.
    await recordShardCopyDropped(ctxOf(c), { drop: data, servedBy: bindingAt({ logical: data.logical }) });
    return c.json({ data }, 200);
  });
}
