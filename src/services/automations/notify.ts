/**
 * In-app notices to an automation's owner about work no request is waiting on (the project's daily limit, a run or a
 * delivery that will not complete). The notice is built in the automation's shard database from the automation row
 * (its owner and name) and written to the outbox there, in the batch of the shard write it announces; it reaches the
 * directory, where GET /notification/all reads it, through src/services/notifications/outbox.ts
 * (docs/scaling.md "Notifications: an outbox").
 */
import { is, SQL, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { noticeId, outboxNotices, outboxSelect } from "../notifications/outbox";
import type { RunRow } from "./serialize";
import { utcDay } from "./cascade";

export interface OwnerNotice {
  /** A deterministic id (noticeId). */
  id: string;
  /** The automation, or SQL that yields its id in the statement (found through the run or delivery). */
  automation: string | SQL;
  kind: string;
  /** The title; `{name}` stands for the automation's name. */
  title: string;
  body: string;
  /** The notice's data: JSON text in SQL, or a value; `automationId` is set from the automation either way. */
  data: Record<string, unknown> | SQL;
  at: number;
}

/**
 * The owner's notice into the outbox, when the automation exists and `condition` (SQL over alias `a`, the
 * automation) holds as the statement runs: put it in a batch before the write that changes what it checks.
 */
export function ownerNoticeStatement(db: Db, notice: OwnerNotice, queuedAt: number, condition: SQL = sql`true`) {
  const automationId = typeof notice.automation === "string" ? sql`${notice.automation}` : notice.automation;
  const data = is(notice.data, SQL) ? notice.data : sql`${JSON.stringify(notice.data)}`;
  return outboxSelect(
    db,
    sql`SELECT ${notice.id}, a.owner_id, ${notice.kind}, replace(${notice.title}, '{name}', a.name), ${notice.body},
               json_set(${data}, '$.automationId', a.id), ${notice.at}, ${queuedAt}
        FROM automations a WHERE a.id = (${automationId}) AND (${condition})`,
  );
}

/** An in-app notice a notify action asked for (written with the run's record). */
export interface ActionNotice {
  actionId: string;
  title: string;
  body: string;
}

export interface RunNotices {
  run: RunRow;
  status: "succeeded" | "failed" | "skipped";
  reason: string;
  affectedRows: number;
  /** The owner the run acted for (null when it did not act: no notify action's notice then). */
  ownerId: string | null;
  notices: ActionNotice[];
  finishedAt: number;
  disableAfter: number;
}

/**
 * The outbox statements of a run's record (runner.ts recordRun), to follow the automation's update in its batch:
 * the notify actions' notices; that the automation was disabled (read from the failure count the update leaves);
 * the run's outcome when the owner asked for it (notify.inApp). Ids derive from the run and the notice.
 */
export function runNoticeStatements(db: Db, r: RunNotices) {
  const { run, finishedAt } = r;
  const failed = r.status === "failed";
  const data = { runId: run.id };
  const statements = [];
  if (r.notices.length && r.ownerId) {
    const rows = r.notices.map((n) => ({
      id: noticeId(run.id, `automation.notify:${n.actionId}`),
      userId: r.ownerId!,
      kind: "automation.notify",
      title: n.title,
      body: n.body,
      data: { automationId: run.automationId, runId: run.id },
      createdAt: run.startedAt ?? finishedAt,
    }));
    statements.push(outboxNotices(db, rows, finishedAt));
  }
  if (failed) {
    const body = `It failed ${r.disableAfter} times in a row. Last error: ${r.reason}`;
    const notice = {
      id: noticeId(run.id, "automation.disabled"),
      automation: run.automationId,
      kind: "automation.disabled",
      title: 'Automation "{name}" was disabled',
      body,
      data,
      at: finishedAt,
    };
    statements.push(
      ownerNoticeStatement(db, notice, finishedAt, sql`a.consecutive_failures = ${r.disableAfter} AND a.enabled = 0`),
    );
  }
  if (r.status !== "skipped") {
    const notice = {
      id: noticeId(run.id, "automation.run"),
      automation: run.automationId,
      kind: failed ? "automation.run.failed" : "automation.run.succeeded",
      title: `Automation "{name}" ${failed ? "failed" : "ran"}`,
      body: failed ? r.reason : `${r.affectedRows} row(s) affected`,
      data,
      at: finishedAt,
    };
    statements.push(ownerNoticeStatement(db, notice, finishedAt, sql`json_extract(a.notify, '$.inApp') = 1`));
  }
  return statements;
}

/**
 * The notice of the project's daily limit, for the batch of the first run over it: before that batch's claim of the
 * day's notice, and only while the day is unclaimed, so the claim and the notice happen together or not at all.
 */
export function dailyLimitNoticeStatement(db: Db, run: RunRow, at: number, dailyRuns: number) {
  const notice = {
    id: noticeId(run.id, "automation.dailyLimit"),
    automation: run.automationId,
    kind: "automation.dailyLimit",
    title: "Automations paused for today",
    body: `This project started ${dailyRuns} automation runs today (UTC); further runs are skipped until midnight UTC.`,
    data: { runId: run.id, projectId: run.projectId },
    at,
  };
  const unclaimed = sql`EXISTS (SELECT 1 FROM automation_project_days d WHERE d.project_id = ${run.projectId} AND d.day = ${utcDay(at)} AND d.notified = 0)`;
  return ownerNoticeStatement(db, notice, at, unclaimed);
}

/** The notice of a run failed for good (runner.ts failRunForGood): before the batch's update, while the run is still open. */
export function deadLetteredRunNoticeStatement(db: Db, runId: string, reason: string, at: number) {
  const notice = {
    id: noticeId(runId, "automation.run"),
    automation: sql`SELECT r.automation_id FROM automation_runs r WHERE r.id = ${runId}`,
    kind: "automation.run.failed",
    title: 'Automation "{name}" could not run',
    body: reason,
    data: { runId },
    at,
  };
  const open = sql`EXISTS (SELECT 1 FROM automation_runs r WHERE r.id = ${runId} AND r.status IN ('queued', 'running'))`;
  return ownerNoticeStatement(db, notice, at, open);
}
