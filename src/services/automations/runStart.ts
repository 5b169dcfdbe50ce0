/**
 * A claimed run's start (docs/api-guide.md › Automations, published portals, collaborative editing), before any
 * action: what the run needs to know (its automation, its owner, the project's runs today, its cascade's state),
 * why it might not execute at all (deleted, disabled, over the day's limit, its cascade spent), and the checks of
 * access and `conditions` that decide whether its actions run. The claim and the run itself: runner.ts; its
 * actions: runActions.ts.
 */
import { statement } from "../../db/d1";
import { eq } from "drizzle-orm";
import { automations, users } from "../../db/schema";
import type { Db, Env } from "../../env";
import { createDb } from "../../db/client";
import { ApiError } from "../../errors";
import type { AutomationRow } from "../../auth/access";
import type { ConditionValue } from "../../schemas/automations";
import { getProject } from "../projects/projects";
import { getRowInAnyState, listRowsOfTable } from "../tables/rowReads";
import type { ActiveRun, RowWithCells } from "./actions";
import { errorInfo } from "./budget";
import { DAILY_RUNS, cascadeHome, foreignCascade } from "./cascade";
import { claimDayNoticeStatement, dayRunStatement, exhaustedStatement } from "./cascadeQueries";
import { conditionHolds, hasTests } from "./conditions";
import { dailyLimitNoticeStatement } from "./notify";
import { deliverAtOnce, outboxRowOf } from "../notifications/outbox";
import type { RunRow } from "./serialize";
import type { Verdict } from "./runActions";

type OwnerRow = typeof users.$inferSelect;

interface RunInputs {
  automation: AutomationRow | undefined;
  owner: OwnerRow | null;
  /** The project's runs started today (UTC), this one counted. */
  dayRuns: number;
  cascadeExhausted: boolean;
}

/**
 * The automation and its owner (the shard's copy of the user); the project's runs today and the cascade's state,
 * in the run's shard database `d1` (the cascade's state at its home when that is another database).
 */
export async function loadRunInputs(
  env: Env,
  d1: D1Database,
  db: Db,
  run: RunRow,
  cascadeId: string,
  startedAt: number,
): Promise<RunInputs> {
  // A cascade from another shard database (a run's write reached this organization) is read at its home, at the same time.
  const foreign = foreignCascade(cascadeId, run.projectId);
  const [foundRows, [dayRows, localCascade], homeCascade] = await Promise.all([
    db
      .select({ automation: automations, owner: users })
      .from(automations)
      .leftJoin(users, eq(users.id, automations.ownerId))
      .where(eq(automations.id, run.automationId)),
    d1.batch<{ runs?: number; exhausted?: number }>([
      dayRunStatement(d1, run.projectId, startedAt),
      ...(foreign ? [] : [exhaustedStatement(d1, cascadeId)]),
    ]),
    foreign
      ? exhaustedStatement(cascadeHome(env, cascadeId, run.projectId), cascadeId).first<{ exhausted?: number }>()
      : null,
  ]);
  return {
    automation: foundRows[0]?.automation,
    owner: foundRows[0]?.owner ?? null,
    dayRuns: Number(dayRows!.results[0]?.runs ?? 0),
    cascadeExhausted: Boolean(foreign ? homeCascade?.exhausted : localCascade!.results[0]?.exhausted),
  };
}

/** Why a claimed run does not execute at all; null when it does. The project's first run over the day's limit tells the owner. */
export async function refusal(
  env: Env,
  d1: D1Database,
  run: RunRow,
  inputs: RunInputs,
  startedAt: number,
): Promise<Verdict | null> {
  const { automation } = inputs;
  if (!automation || automation.isDeleted || !inputs.owner)
    return { status: "failed", error: { code: "AutomationDeleted", message: "The automation no longer exists" } };
  // Disabled means never run: not by an event, a schedule, a person or a retry queued before it was disabled.
  if (!automation.enabled)
    return {
      status: "skipped",
      error: { code: "Disabled", message: "The automation was disabled before this run started" },
    };
  if (inputs.dayRuns > DAILY_RUNS) {
    // The first run over the limit claims the day's notice, and writes the notice in the same batch (notify.ts).
    const notice = dailyLimitNoticeStatement(createDb(d1), run, startedAt, DAILY_RUNS).toSQL();
    const [inserted] = await d1.batch([
      statement(d1, notice.sql, ...notice.params),
      claimDayNoticeStatement(d1, run.projectId, startedAt),
    ]);
    await deliverAtOnce(env, d1, (inserted!.results as Record<string, unknown>[]).map(outboxRowOf));
    return {
      status: "skipped",
      error: {
        code: "DailyRunLimitExceeded",
        message: `The project has started ${DAILY_RUNS} automation runs today (UTC)`,
        limit: DAILY_RUNS,
      },
    };
  }
  if (inputs.cascadeExhausted)
    return {
      status: "skipped",
      error: {
        code: "CascadeBudgetExceeded",
        message: "The cascade this run belongs to has used its budget for its cause",
      },
    };
  return null;
}

/** Live rows of the conditions' table that meet them, read through the rows listing the route uses. */
async function selectRows(ar: ActiveRun, condition: ConditionValue): Promise<RowWithCells[]> {
  const out: RowWithCells[] = [];
  let cursor: string | undefined;
  do {
    const page = await listRowsOfTable(ar.ctx.on(String(condition.tableId)), {
      tableId: String(condition.tableId),
      limit: 1000,
      cursor,
    });
    for (const r of page.data) {
      if (conditionHolds(condition, r.cells))
        out.push({
          id: r._id,
          tableId: r.tableId,
          projectId: ar.automation.projectId,
          isDeleted: false,
          cells: r.cells,
        });
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

/**
 * Before any action: the owner can still read the project (else the run fails, it does not act), the triggering
 * row as it is now (deleted ones too) if the owner can read it, and the rows `conditions` select (none: skipped).
 */
export async function prepare(ar: ActiveRun): Promise<Verdict | null> {
  try {
    // The project a trigger watches may be another (another organization's too): the owner must still read it, or
    // the run would tell them of events they can no longer see. Both checks at once.
    const watched = ar.run.trigger.projectId;
    await Promise.all([
      getProject(ar.ctx, { projectId: ar.automation.projectId }).catch(() => {
        throw new ApiError("ForbiddenError", "The automation's owner can no longer read its project");
      }),
      typeof watched === "string" && watched !== ar.automation.projectId
        ? getProject(ar.ctx.on(watched), { projectId: watched }).catch(() => {
            throw new ApiError(
              "ForbiddenError",
              "The automation's owner can no longer read the project its trigger watches",
            );
          })
        : null,
    ]);
    const rowId = ar.run.trigger.rowId;
    if (typeof rowId === "string") {
      // In the row's own shard database: a trigger may watch another organization's project (remoteTriggers.ts).
      const found = await getRowInAnyState(ar.ctx.on(rowId), rowId).catch(() => {
        throw new ApiError("ForbiddenError", "The automation's owner can no longer read the triggering row");
      });
      if (found)
        ar.triggerRow = {
          id: found.row.id,
          tableId: found.row.tableId,
          projectId: found.row.projectId,
          isDeleted: found.row.isDeleted,
          cells: found.cells,
        };
    }
    const conditions = ar.automation.conditions as ConditionValue | null;
    if (!hasTests(conditions)) return null;
    if (ar.triggerRow) ar.selected = conditionHolds(conditions, ar.triggerRow.cells) ? [ar.triggerRow] : [];
    else if (conditions.tableId) ar.selected = await selectRows(ar, conditions);
    else ar.selected = [];
    return ar.selected.length === 0 ? { status: "skipped", error: null } : null;
  } catch (err) {
    return { status: "failed", error: errorInfo(err) };
  }
}
