/**
 * The audit entries of automations (docs/api-guide.md › Changes, history and audit): `automation.created`,
 * `automation.updated` (the members the PATCH named that changed, before and after) and `automation.deleted`, each
 * about the automation, for the batch of the write it records. The webhook secret is never copied into the log.
 */
import { sql } from "drizzle-orm";
import type { automations } from "../../db/schema";
import { auditEntryQuery, changedFields } from "../audit/log";
import type { ServiceContext } from "../context";

type Row = typeof automations.$inferSelect;
const scope = (a: Row) => ({ recordId: a.id, workspaceId: a.workspaceId, projectId: a.projectId });
const MEMBERS = ["name", "description", "enabled", "triggers", "actions"] as const;

/** After the insert: recorded when the batch made the automation. */
export function createdAudit(ctx: ServiceContext, row: Row) {
  const values = Object.fromEntries(MEMBERS.map((m) => [m, (row as Record<string, unknown>)[m] ?? null]));
  return auditEntryQuery(ctx, {
    kind: "automation.created",
    ...scope(row),
    changes: changedFields(null, values),
    exists: sql`EXISTS (SELECT 1 FROM automations a WHERE a.id = ${row.id} AND a.created_at = ${ctx.now})`,
  });
}

/**
 * After the conditional update to `next.version`: the members `named` by the PATCH that changed, recorded when the
 * update held; nothing when none changed.
 */
export function updatedAudit(ctx: ServiceContext, current: Row, next: Row, named: readonly string[]) {
  const pick = (a: Row) =>
    Object.fromEntries(
      named.filter((m) => m !== "projectId" && m !== "workspaceId").map((m) => [m, (a as Record<string, unknown>)[m]]),
    );
  const changes = changedFields(pick(current), pick(next));
  if (!changes) return [];
  return [
    auditEntryQuery(ctx, {
      kind: "automation.updated",
      ...scope(current),
      changes,
      exists: sql`EXISTS (SELECT 1 FROM automations a WHERE a.id = ${current.id} AND a.version = ${next.version})`,
    }),
  ];
}

/** Before the update that deletes it: recorded when the automation is not deleted yet. */
export function deletedAudit(ctx: ServiceContext, current: Row) {
  return auditEntryQuery(ctx, {
    kind: "automation.deleted",
    ...scope(current),
    changes: { isDeleted: { before: false, after: true } },
    exists: sql`EXISTS (SELECT 1 FROM automations a WHERE a.id = ${current.id} AND a.is_deleted = 0)`,
  });
}
