/** redeliverWebhook: POST /automation/delivery/{id}/redeliver (src/routes/automations/redeliver.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
  seedTenant,
  type Tenant,
} from "../../support/harness";
import { eventually, hookUrl, receiverLog, sleep, webhookAction } from "../../support/automations";
import { shardD1 } from "../../support/shards";

/**
 * Cascades are bounded as a whole (docs/api-guide.md, automations): everything one cause sets off shares one budget
 * of writes and deliveries, every start counts depth the same, retries stay in their cascade, disabled automations
 * never run, and a project runs a bounded number of automations a day. These tests count rows, runs and
 * deliveries per cause; none measures time.
 */
describe("cascade", () => {
  let owner: RegisteredUser;
  let projectId: string;

  beforeAll(async () => {
    owner = await registerUser("Cascade owner");
    projectId = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "Cascades" } })
    ).data._id;
  });

  async function automation(body: Record<string, unknown>, token = owner.token, project = projectId) {
    return (await ok("POST", "/automation", { token, body: { projectId: project, name: "A", ...body } })).data;
  }

  describe("redelivery", () => {
    async function failedDelivery(key: string, budget: number) {
      const auto = await automation({
        behavior: { externalWriteBudget: budget },
        actions: [{ id: "hook", spec: { kind: "webhook", url: hookUrl(key, { statuses: "410,200" }) } }],
      });
      await ok("POST", `/automation/${auto._id}/run`, { token: owner.token });
      const failed = await eventually(async () => {
        const d = await shardD1(auto._id)
          .prepare(`SELECT id, status FROM automation_deliveries WHERE automation_id = ?1`)
          .bind(auto._id)
          .first<{ id: string; status: string }>();
        return d?.status === "failed" ? d : null;
      });
      return { auto, deliveryId: failed.id };
    }

    it("20 concurrent redeliveries of one delivery: one is claimed and sent, the others are 409; every send is an attempt", async () => {
      const key = `redeliver-race-${Date.now()}`;
      const { auto, deliveryId } = await failedDelivery(key, 100);
      const answers = await Promise.all(
        Array.from({ length: 20 }, () =>
          call("POST", `/automation/delivery/${deliveryId}/redeliver`, { token: owner.token }),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      for (const r of answers.filter((x) => x.status !== 200)) expectError(r, 409, "ConflictError");
      const done = await eventually(async () => {
        const d = (await ok("GET", `/automation/${auto._id}/deliveries`, { token: owner.token })).data[0];
        return d.status === "delivered" ? d : null;
      });
      await sleep(1500);
      const log = await receiverLog(key);
      expect(log).toHaveLength(2);
      expect(done.attempts.map((a: any) => a.httpStatus)).toEqual([410, 200]);
      // Finished, the delivery can be sent again (one attempt at a time, not one ever).
      expect((await call("POST", `/automation/delivery/${deliveryId}/redeliver`, { token: owner.token })).status).toBe(
        200,
      );
    });

    it("a keyed redelivery keeps its answer with its claim: a retry after a crash replays it and sends nothing more", async () => {
      const key = `redeliver-crash-${Date.now()}`;
      const { auto, deliveryId } = await failedDelivery(key, 100);
      const db = shardD1(auto._id);
      const idem = `after-write-${crypto.randomUUID()}`;
      // Only the request's final answer is refused: the request dies after its write (test/shared/idempotency.test.ts).
      await db
        .prepare(
          `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer_redeliver BEFORE UPDATE OF status ON idempotency_keys
       WHEN NEW.key = '${idem}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`,
        )
        .run();
      const send = () =>
        call("POST", `/automation/delivery/${deliveryId}/redeliver`, {
          token: owner.token,
          headers: { "idempotency-key": idem },
        });
      try {
        expect((await send()).status).toBe(500);
      } finally {
        await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer_redeliver").run();
      }
      await eventually(async () =>
        (await ok("GET", `/automation/${auto._id}/deliveries`, { token: owner.token })).data[0].status === "delivered"
          ? true
          : null,
      );
      const retried = await send();
      expect(retried.status).toBe(200);
      expect(retried.headers.get("idempotent-replayed")).toBe("true");
      expect(retried.body.data).toMatchObject({ _id: deliveryId, status: "pending" });
      await sleep(1500);
      // The first send and the one redelivery: the retry sent nothing.
      expect(await receiverLog(key)).toHaveLength(2);
    });

    it("a redelivery counts against the run's externalWriteBudget: past it, 409 and nothing is sent", async () => {
      const key = `redeliver-budget-${Date.now()}`;
      const { deliveryId } = await failedDelivery(key, 1);
      expectError(
        await call("POST", `/automation/delivery/${deliveryId}/redeliver`, { token: owner.token }),
        409,
        "ConflictError",
      );
      await sleep(1500);
      expect(await receiverLog(key)).toHaveLength(1);
      const d = await shardD1(deliveryId)
        .prepare(`SELECT status, attempts FROM automation_deliveries WHERE id = ?1`)
        .bind(deliveryId)
        .first<{ status: string; attempts: string }>();
      expect(d!.status).toBe("failed");
      expect(JSON.parse(d!.attempts)).toHaveLength(1);
    });
  });
});

describe("webhooks", () => {
  let t: Tenant;

  beforeAll(async () => {
    t = await seedTenant();
  });

  const key = (name: string) => `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`;

  async function webhookAutomation(url: string, extra: Record<string, unknown> = {}) {
    return (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Hook", actions: [webhookAction(url)], ...extra },
      })
    ).data;
  }

  async function deliveries(automationId: string, query: Record<string, string> = {}): Promise<any[]> {
    return (await ok("GET", `/automation/${automationId}/deliveries`, { token: t.owner.token, query })).data;
  }

  describe("webhooks", () => {
    it("redelivery sends a delivery again as a new attempt; only owner or admin", async () => {
      const k = key("redeliver");
      const a = await webhookAutomation(hookUrl(k, { statuses: "410,200" }));
      await ok("POST", `/automation/${a._id}/run`, { token: t.owner.token });
      const failed = await eventually(async () => {
        const [x] = await deliveries(a._id);
        return x?.status === "failed" ? x : null;
      });
      expectError(
        await call("POST", `/automation/delivery/${failed._id}/redeliver`, { token: t.editor.token }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", `/automation/delivery/${failed._id}/redeliver`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
      const queued = (await ok("POST", `/automation/delivery/${failed._id}/redeliver`, { token: t.owner.token })).data;
      expect(queued.status).toBe("pending");
      const done = await eventually(async () => {
        const [x] = await deliveries(a._id);
        return x?.status === "delivered" ? x : null;
      });
      expect(done.attempts.map((x: any) => x.httpStatus)).toEqual([410, 200]);
      const log = await receiverLog(k);
      expect(log[0]!.headers["webhook-id"]).toBe(log[1]!.headers["webhook-id"]);
      expectError(
        await call("GET", `/automation/${a._id}/deliveries`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
    });
  });
});
