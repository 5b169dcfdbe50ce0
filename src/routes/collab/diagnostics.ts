import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/route";
import { errorResponses, jsonBody, okData, pathId, type Router } from "../../openapi";
import { requireAdminToken } from "../../http/admin";
import { roomOf } from "../../services/collab/rooms";

const StatsSchema = z
  .object({
    documentId: z.string().nullable(),
    storedBytes: z.number().int(),
    stateBytes: z.number().int(),
    stateChunks: z.number().int(),
    updateCount: z.number().int(),
    connections: z.number().int(),
    dirty: z.boolean(),
  })
  .openapi("CollaborationRoomStats");

const route = defineRoute({
  operationId: "inspectCollaborationRoom",
  auth: "public",
  // The deployment admin token, checked before body validation (401 before 400).
  use: [requireAdminToken],
  security: [{ bearer: [] }],
  method: "post",
  path: "/admin/collab/{documentId}",
  tags: ["Collaboration"],
  summary: "Inspect a collaborative room (deployment admin token)",
  description:
    "Operator diagnostics and the collab benchmark: the room's stored bytes and update count, optionally after changing its compaction " +
    "interval or compacting it now, and the time a restarted room takes to load its stored state (measured around the call, so an upper bound).",
  request: {
    params: z.object({ documentId: pathId("documentId") }),
    ...jsonBody(
      z.strictObject({
        compact: z.boolean().optional().openapi({ description: "Compact the room's updates into one state first" }),
        compactEvery: z
          .number()
          .int()
          .min(1)
          .max(1_000_000)
          .nullable()
          .optional()
          .openapi({ description: "Updates between compactions (null: the default 2 000)" }),
      }),
    ),
  },
  responses: {
    ...okData(
      z
        .object({ stats: StatsSchema, reloadMs: z.number(), reloadMatches: z.boolean() })
        .openapi("CollaborationRoomInspection"),
    ),
    ...errorResponses(),
  },
});

export function registerInspectCollaborationRoom(app: Router) {
  app.openapi(route, async (c) => {
    const { documentId } = c.req.valid("param");
    const body = c.req.valid("json");
    const room = roomOf(c.env, documentId);
    if (body.compactEvery !== undefined || body.compact) {
      await room.diagnostics({
        limits: body.compactEvery !== undefined ? { compactEvery: body.compactEvery } : undefined,
        compact: body.compact,
      });
    }
    // Timed here, around the call: inside the object the clock does not advance while it computes.
    const started = performance.now();
    const { stats, reload } = await room.diagnostics({ reload: true });
    const reloadMs = performance.now() - started;
    return c.json({ data: { stats, reloadMs, reloadMatches: reload!.matches } }, 200);
  });
}
