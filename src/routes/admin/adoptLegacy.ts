import { z } from "@hono/zod-openapi";
import { defineRoute } from "../../http/route";
import { requireAdminToken } from "../../http/admin";
import { errorResponses, okData, type Router } from "../../openapi";
import { adoptLegacyData } from "../../services/shards/adopt";

const route = defineRoute({
  operationId: "adoptLegacyData",
  auth: "public",
  use: [requireAdminToken],
  roundTrips: 1000,
  method: "post",
  path: "/admin/shards/adopt",
  shard: "service",
  tags: ["Identity"],
  summary: "Move records kept in the directory by an earlier version into their shard databases (deployment admin token)",
  description:
    "For a database from before the service had shard databases (docs/scaling.md): copies every user into every shard database, then moves " +
    "each logical shard found in the directory to its shard database (copied, verified, then dropped from the directory), and gives every " +
    "published portal entry without a route in the directory its route, and builds the directory's index of memberships. Once the directory's shard tables are empty it drops them " +
    "(a directory made before migrations were split per kind), and turns event triggers on another organization's project kept beside their " +
    "automation into pointers where that project is (docs/scaling.md \"Triggers across organizations\"). Does nothing " +
    "when the directory holds no organization's records; `npm start` calls it on every start.",
  security: [{ bearer: [] }],
  responses: {
    ...okData(
      z.object({
        usersCopied: z.number().int(),
        moved: z.array(z.object({ logical: z.number().int(), to: z.string(), rows: z.number().int() })),
        portalRoutesAdded: z.number().int(),
        referenceIdsAdded: z.number().int(),
        userOrganizations: z.object({ written: z.number().int(), removed: z.number().int() }),
        directoryTablesDropped: z.array(z.string().max(64)).max(64),
        triggersPointed: z.number().int(),
      }),
    ),
    ...errorResponses("UnauthorizedError", "RateLimitedError"),
  },
});

export function registerAdoptLegacy(app: Router) {
  app.openapi(route, async (c) => c.json({ data: await adoptLegacyData(c.env, Date.now()) }, 200));
}
