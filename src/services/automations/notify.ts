/**
 * In-app notices to an automation's owner about work no request is waiting on (the project's daily limit, a run or a
 * delivery that will not complete). The notice is built in the automation's shard database from the automation row
 * (its owner and name) and written to the outbox there, in the batch of the shard write it announces; it reaches the
 * directory, where GET /notification/all reads it, through src/services/notifications/outbox.ts
 * (docs/scaling.md "Notifications: an outbox").
 */
import { is, SQL, sql } from "drizzle-orm";
import type { Db } from "../../env";
import { outboxSelect } from "../notifications/outbox";

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
