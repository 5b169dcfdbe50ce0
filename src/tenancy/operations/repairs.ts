/**
 * The Worker's own upkeep, started by its Cron Trigger every minute beside the automation scheduler (src/index.ts):
 * the repairs of what a write keeps in two databases — users' copies in the shards (identity/users.ts
 * repairUserCopies), the directory's portal routes (portals/routes.ts reconcilePortalRoutes), reference ids
 * (references/referenceIds.ts reconcileReferenceIds) and index of memberships (organizations/userOrganizations.ts
 * reconcileUserOrganizations) — and the delivery of the notifications the shards' outboxes still hold
 * (notifications/outbox.ts drainNotificationOutbox), and the removal of CSV imports an isolate abandoned midway
 * (tableCsv/sweep.ts sweepStagedImports). Each runs beside the others, never in their way: a failure is
 * logged and tried again at the next tick.
 */
import type { Env } from "../../env";
import { repairUserCopies } from "../../services/identity/users";
import { drainNotificationOutbox } from "../../services/notifications/outbox";
import { reconcileUserOrganizations } from "../../services/organizations/userOrganizations";
import { reconcilePortalRoutes } from "../../services/portals/routes";
import { reconcileReferenceIds } from "../../services/references/referenceIds";
import { sweepStagedImports } from "../../services/tableCsv/sweep";

const REPAIRS: [string, (env: Env, now: number) => Promise<unknown>][] = [
  ["user copy repair failed", repairUserCopies],
  ["portal route repair failed", reconcilePortalRoutes],
  ["reference id repair failed", reconcileReferenceIds],
  ["membership index repair failed", reconcileUserOrganizations],
  ["notification outbox drain failed", drainNotificationOutbox],
  ["staged CSV import sweep failed", sweepStagedImports],
];

/** Starts every repair, each kept alive by `waitUntil`; returns at once. */
export function startRepairs(env: Env, ctx: ExecutionContext, now: number): void {
  for (const [failure, repair] of REPAIRS) {
    ctx.waitUntil(
      repair(env, now).catch((err: unknown) =>
        console.error(JSON.stringify({ level: "error", msg: failure, error: String(err) })),
      ),
    );
  }
}
