// The notification outbox (docs/scaling.md "Notifications: an outbox"): an automation's notices are written to its
// shard's notification_outbox in the batch that records the run, then copied into the directory's notifications and
// deleted from the outbox; a copy that fails leaves the row for the scheduler tick's drainNotificationOutbox, and a
// notice's id derives from its run, so neither a second delivery nor a second execution of the run makes two.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../support/harness";
import { callQueue, callScheduled, eventually, finishedRuns, hookUrl } from "../support/automations";
import { shardD1 } from "../support/shards";
import { logicalShardOfId } from "../../src/tenancy/kernel/ids";
import { drainNotificationOutbox, noticeId } from "../../src/services/notifications/outbox";

let t: Tenant;
let n = 0;
const uniqueTitle = (what: string) => `${what} ${Date.now().toString(36)}-${++n}`;

beforeAll(async () => {
  t = await seedTenant();
});

/** An automation with one notify action `tell` titled `title`, run once by hand; the finished run. */
async function runNotifier(title: string) {
  const automation = (
    await ok("POST", "/automation", {
      token: t.owner.token,
      body: {
        projectId: t.projectId,
        name: "Notifier",
        notify: { inApp: false },
        actions: [{ id: "tell", spec: { kind: "notify", title, body: "outbox" } }],
      },
    })
  ).data;
  await ok("POST", `/automation/${automation._id}/run`, { token: t.owner.token });
  const [run] = await finishedRuns(t.owner.token, automation._id);
  expect(run.status).toBe("succeeded");
  return { automation, run };
}

/** The owner's notifications (through the API) titled `title`. */
async function listed(title: string): Promise<any[]> {
  return (await ok("GET", "/notification/all", { token: t.owner.token })).data.filter((x: any) => x.title === title);
}

/** The outbox rows whose data names `runId`, in its shard database (or `db`). */
async function outboxOf(runId: string, db = shardD1(runId)) {
  const { results } = await db
    .prepare(`SELECT id, title FROM notification_outbox WHERE json_extract(data, '$.runId') = ?1`)
    .bind(runId)
    .all<{ id: string; title: string }>();
  return results;
}

describe("notification outbox", () => {
  it("a notify action's notice reaches the owner's notifications once, under an id derived from the run and the action, and leaves the outbox empty", async () => {
    const title = uniqueTitle("Delivered");
    const { run } = await runNotifier(title);
    const notes = await eventually(
      async () => {
        const found = await listed(title);
        return found.length ? found : null;
      },
      10_000,
      "the notice",
    );
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ kind: "automation.notify", body: "outbox", data: { runId: run._id } });
    expect(notes[0]._id).toBe(noticeId(run._id, "automation.notify:tell"));
    // Issued on the organization's logical shard, like every shard row's key.
    expect(notes[0]._id.slice(-2)).toBe(run._id.slice(-2));
    expect(await outboxOf(run._id)).toEqual([]);
  });

  it("when the directory refuses the notice, the outbox keeps it and the tick delivers it exactly once", async () => {
    const title = uniqueTitle("Refused once");
    // The second half fails on purpose: the directory refuses this notice (and only this one) while the trigger lives.
    await env.DB.prepare(
      `CREATE TRIGGER test_refuse_notice BEFORE INSERT ON notifications WHEN NEW.title = '${title}' BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END`,
    ).run();
    let run: any;
    try {
      ({ run } = await runNotifier(title));
    } finally {
      await env.DB.prepare(`DROP TRIGGER test_refuse_notice`).run();
    }
    // The run itself is recorded; its notice is not in the directory but waits in the shard's outbox.
    expect(await listed(title)).toEqual([]);
    const waiting = await outboxOf(run._id);
    expect(waiting).toEqual([{ id: noticeId(run._id, "automation.notify:tell"), title }]);

    // Within the grace period the drain leaves it (an immediate delivery may still be on its way).
    await drainNotificationOutbox(env, Date.now());
    expect(await listed(title)).toEqual([]);
    expect(await outboxOf(run._id)).toHaveLength(1);

    // The scheduler's tick (the Worker's scheduled handler) delivers it once it is older than that.
    await shardD1(run._id)
      .prepare(`UPDATE notification_outbox SET queued_at = queued_at - 60000 WHERE id = ?1`)
      .bind(waiting[0]!.id)
      .run();
    await callScheduled(Date.now());
    expect(await listed(title)).toHaveLength(1);
    expect(await outboxOf(run._id)).toEqual([]);

    // Again: nothing more.
    await callScheduled(Date.now() + 60_000);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    expect(await listed(title)).toHaveLength(1);
  });

  it("a delivery repeated after the directory took the notice, or a run executed again, does not make a second", async () => {
    const title = uniqueTitle("Once only");
    const { run } = await runNotifier(title);
    await eventually(async () => (await listed(title)).length === 1, 10_000, "the notice");
    const id = noticeId(run._id, "automation.notify:tell");

    // The isolate died after the directory's insert and before the outbox's delete: the row is still there.
    await shardD1(run._id)
      .prepare(
        `INSERT INTO notification_outbox (id, user_id, kind, title, body, data, created_at, queued_at) VALUES (?1, ?2, 'automation.notify', ?3, 'outbox', ?4, ?5, ?5)`,
      )
      .bind(
        id,
        t.owner.id,
        title,
        JSON.stringify({ automationId: run.automationId, runId: run._id }),
        Date.now() - 60_000,
      )
      .run();
    const drained = await drainNotificationOutbox(env, Date.now());
    expect(drained.delivered).toBeGreaterThanOrEqual(1);
    expect(await listed(title)).toHaveLength(1);
    expect(await outboxOf(run._id)).toEqual([]);

    // The run executed a second time (its message redelivered after its claim was lost): the same notice id.
    await shardD1(run._id).prepare(`UPDATE automation_runs SET status = 'queued' WHERE id = ?1`).bind(run._id).run();
    await callQueue("automation-runs", [{ kind: "run", runId: run._id }], 2);
    await finishedRuns(t.owner.token, run.automationId);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    expect(await listed(title)).toHaveLength(1);
    expect(await outboxOf(run._id)).toEqual([]);
  });

  it("a webhook delivery that fails for good tells its owner once, through the outbox of its shard, whichever path fails it", async () => {
    const webhookAutomation = async (name: string, url: string) =>
      (
        await ok("POST", "/automation", {
          token: t.owner.token,
          body: {
            projectId: t.projectId,
            name,
            notify: { inApp: false },
            actions: [{ id: "hook", spec: { kind: "webhook", url } }],
          },
        })
      ).data;
    const deliveriesOf = async (automationId: string) =>
      (await ok("GET", `/automation/${automationId}/deliveries`, { token: t.owner.token })).data;
    const failures = async (deliveryId: string) =>
      (await ok("GET", "/notification/all", { token: t.owner.token })).data.filter(
        (x: any) => x.kind === "automation.webhook.failed" && x.data?.deliveryId === deliveryId,
      );

    // A final answer (410): the attempt that records the failure writes the notice in the same batch.
    const gone = await webhookAutomation(
      uniqueTitle("Gone hook"),
      hookUrl(uniqueTitle("gone").replace(/\W/g, "-"), { statuses: "410" }),
    );
    await ok("POST", `/automation/${gone._id}/run`, { token: t.owner.token });
    const failed = await eventually(
      async () => {
        const [d] = await deliveriesOf(gone._id);
        return d?.status === "failed" ? d : null;
      },
      15_000,
      "the failed delivery",
    );
    const [notice] = await eventually(
      async () => {
        const found = await failures(failed._id);
        return found.length ? found : null;
      },
      10_000,
      "the failure's notice",
    );
    expect(notice).toMatchObject({
      title: `A webhook of "${gone.name}" failed`,
      data: { automationId: gone._id, deliveryId: failed._id },
    });
    expect(notice._id).toBe(noticeId(failed._id, "automation.webhook.failed"));
    // The dead-letter queue giving up on it too adds nothing (the delivery is no longer pending).
    await callQueue("automation-dlq", [{ kind: "delivery", deliveryId: failed._id }], 11);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    expect(await failures(failed._id)).toHaveLength(1);

    // A delivery still pending that the dead-letter queue gives up on: failed, and the owner told once.
    const retrying = await webhookAutomation(
      uniqueTitle("Busy hook"),
      hookUrl(uniqueTitle("busy").replace(/\W/g, "-"), { statuses: "503" }),
    );
    await ok("POST", `/automation/${retrying._id}/run`, { token: t.owner.token });
    const pending = await eventually(
      async () => {
        const [d] = await deliveriesOf(retrying._id);
        return d?.attempts.length >= 1 ? d : null;
      },
      15_000,
      "the first attempt",
    );
    for (let i = 0; i < 2; i++) await callQueue("automation-dlq", [{ kind: "delivery", deliveryId: pending._id }], 11);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    const told = await failures(pending._id);
    expect(told).toHaveLength(1);
    expect(told[0]).toMatchObject({
      title: `A webhook of "${retrying.name}" failed`,
      data: { automationId: retrying._id, runId: pending.runId, deliveryId: pending._id },
    });
    expect(await outboxOf(pending.runId)).toEqual([]);
  });

  it("the drain leaves the rows of a logical shard fenced in their database (a move under way) and delivers them once it lifts", async () => {
    const title = uniqueTitle("Fenced notice");
    const shard = shardD1(t.projectId);
    const logical = logicalShardOfId(t.projectId)!;
    const id = noticeId(t.projectId, title);
    const marker = `fenced-${id}`;
    await shard
      .prepare(
        `INSERT INTO notification_outbox (id, user_id, kind, title, body, data, created_at, queued_at) VALUES (?1, ?2, 'automation.notify', ?3, '', ?4, ?5, ?5)`,
      )
      .bind(id, t.owner.id, title, JSON.stringify({ runId: marker }), Date.now() - 60_000)
      .run();
    // Replacing the `active` row an earlier move may have left for this logical shard (no row means the same).
    await shard
      .prepare(
        `INSERT INTO shard_fence (logical, state, moved_to, updated_at) VALUES (?1, 'read-only', NULL, 0) ON CONFLICT (logical) DO UPDATE SET state = 'read-only', moved_to = NULL`,
      )
      .bind(logical)
      .run();
    try {
      const drained = await drainNotificationOutbox(env, Date.now());
      // Stepped around, not failed on: the row could not be deleted while the shard is read-only.
      expect(drained.failed).toBe(0);
      expect(await listed(title)).toEqual([]);
      expect(await outboxOf(marker, shard)).toHaveLength(1);
    } finally {
      await shard.prepare(`DELETE FROM shard_fence WHERE logical = ?1`).bind(logical).run();
    }
    await drainNotificationOutbox(env, Date.now());
    expect(await listed(title)).toHaveLength(1);
    expect(await outboxOf(marker, shard)).toEqual([]);
  });
});
