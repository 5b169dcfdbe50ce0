/** createAutomation: POST /automation (src/routes/automations/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
} from "../../support/harness";
import { makeTable } from "../../support/tableHarness";
import { shardD1 } from "../../support/shards";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("crud", () => {
  let admin: RegisteredUser;

  beforeAll(async () => {
    admin = await registerUser("Admin");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
    await makeTable(t.owner.token, t.projectId);
  });

  const create = (token: string, body: Record<string, unknown>) => call("POST", "/automation", { token, body });

  describe("automation CRUD and E2", () => {
    it("E2 accepts what it returned (response-only members are ignored)", async () => {
      const a = (
        await ok("POST", "/automation", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: "Echo", triggers: [{ cron: "*/5 * * * *" }] },
        })
      ).data;
      const { _id, ...rest } = a;
      const back = await ok("PATCH", `/automation/${_id}`, {
        token: t.owner.token,
        body: { ...rest, _id, ownerId: "someone", nextRunAt: 1, consecutiveFailures: 99, name: "Echo 2" },
      });
      expect(back.data).toMatchObject({
        name: "Echo 2",
        ownerId: t.owner.id,
        consecutiveFailures: 0,
        triggers: [{ type: "schedule", cron: "*/5 * * * *", timezone: "UTC" }],
      });
      expect(back.data.webhookSecret).toBe(a.webhookSecret);
    });

    it("400 for unknown members, bad kinds and budgets outside their bounds", async () => {
      const base = { projectId: t.projectId, name: "B" };
      for (const body of [
        { ...base, bogus: 1 },
        { ...base, behavior: { maxDurationMs: 999 } },
        { ...base, behavior: { maxDurationMs: 900_001 } },
        { ...base, behavior: { operationBudget: 0 } },
        { ...base, behavior: { maxAffectedRows: 100_001 } },
        { ...base, behavior: { externalWriteBudget: 101 } },
        { ...base, actions: [{ spec: { kind: "rm -rf" } }] },
        { ...base, triggers: [{ event: "row.exploded" }] },
        { ...base, triggers: [{ cron: "* * * * *", event: "row.created" }] },
        { ...base, conditions: { predicates: [{ columnId: "c", op: "like" }] } },
      ]) {
        expectError(await create(t.owner.token, body), 400, "ValidationError");
      }
      const a = (await ok("POST", "/automation", { token: t.owner.token, body: base })).data;
      expectError(
        await call("PATCH", `/automation/${a._id}`, {
          token: t.owner.token,
          body: { behavior: { externalWriteBudget: -1 } },
        }),
        400,
        "ValidationError",
      );
    });

    it("422 for a bad cron or time zone and for webhook URLs that are not https or point inward", async () => {
      const base = { projectId: t.projectId, name: "M" };
      for (const trigger of [
        { cron: "61 * * * *" },
        { cron: "* * * *" },
        { cron: "* * * * * *" },
        { cron: "0 9 * * 1", timezone: "Mars/Olympus" },
        { runAt: Date.now() + 1000, timezone: "Nowhere/Land" },
        { cron: "0 9 * * 1", timezone: "+05:00" },
        { cron: "0 9 * * 1", timezone: "-0300" },
      ]) {
        expectError(await create(t.owner.token, { ...base, triggers: [trigger] }), 422, "UnprocessableEntityError");
      }
      const bad = [
        "http://example.com/hook",
        "https://localhost/x",
        "https://LOCALHOST./x",
        "https://app.localhost/x",
        "https://0.0.0.0/x",
        "https://127.0.0.1/x",
        "https://2130706433/x",
        "https://0x7f000001/x",
        "https://0177.0.0.1/x",
        "https://127.1/x",
        "https://10.1.2.3/x",
        "https://172.16.0.1/x",
        "https://192.168.1.1/x",
        "https://169.254.169.254/latest/meta-data",
        "https://100.64.0.1/x",
        "https://[::1]/x",
        "https://[::]/x",
        "https://[::ffff:127.0.0.1]/x",
        "https://[::ffff:7f00:1]/x",
        "https://[::ffff:a9fe:a9fe]/x",
        "https://[fe80::1]/x",
        "https://[fd00::1]/x",
        "https://[fc00::abcd]/x",
        "https://[64:ff9b::a00:1]/x",
        "https://user:pw@example.com/x",
        "ftp://example.com/x",
        "not a url",
      ];
      for (const url of bad) {
        const res = await create(t.owner.token, { ...base, actions: [{ spec: { kind: "webhook", url } }] });
        expect(res.status, url).toBe(422);
        expect(res.body.error).toBe("UnprocessableEntityError");
      }
      for (const url of ["https://example.com/hook", "https://93.184.216.34/x", "https://[2606:4700::1111]/x"]) {
        expect(
          (await create(t.owner.token, { ...base, actions: [{ spec: { kind: "webhook", url } }] })).status,
          url,
        ).toBe(200);
      }
    });

    it("hides webhook header values from readers who cannot change the automation", async () => {
      const a = (
        await ok("POST", "/automation", {
          token: t.owner.token,
          body: {
            projectId: t.projectId,
            name: "H",
            actions: [
              { spec: { kind: "webhook", url: "https://example.com/h", headers: { authorization: "Bearer s3cret" } } },
            ],
          },
        })
      ).data;
      expect(a.actions[0].spec.headers.authorization).toBe("Bearer s3cret");
      const seen = await ok("GET", `/automation/${a._id}`, { token: t.viewer.token });
      expect(seen.data.actions[0].spec.headers.authorization).toBe("********");
    });
  });
});

/**
 * Automation records under concurrency and at scale (docs/api-guide.md): two PATCHes of different members both
 * take effect; the project listing pages past 1,000 with a cursor; webhook URLs are shown in full only to those
 * who may change the automation.
 */
describe("records", () => {
  describe("no lost updates", () => {
    it("concurrent trigger changes leave the event-trigger index matching the stored triggers", async () => {
      const a = (
        await ok("POST", "/automation", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: "Triggers", actions: [] },
        })
      ).data;
      const bodies = ["row.created", "row.updated", "row.deleted", "document.created"].map((event) => ({
        triggers: [{ event }],
      }));
      await Promise.all(bodies.map((body) => call("PATCH", `/automation/${a._id}`, { token: t.owner.token, body })));
      const stored = (await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.triggers.map(
        (x: any) => x.event,
      );
      const index = (
        await shardD1(a._id)
          .prepare(`SELECT event FROM automation_event_triggers WHERE automation_id = ?1 ORDER BY position`)
          .bind(a._id)
          .all<{ event: string }>()
      ).results.map((r) => r.event);
      expect(index).toEqual(stored);
    });
  });
});

/** Conditional requests on automations (docs/api-guide.md › HTTP semantics: retries, caching, replicas): strong ETag and 304 on GET, If-Match on PATCH (E2) and DELETE. */
describe("request-path", () => {
  describe("automation writes fold authentication into their first read", () => {
    it("create, run, retry and rotate cost 2 D1 round trips (3 with an Idempotency-Key), and still refuse what they refused", async () => {
      const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
      await ok("GET", "/me", { token: t.owner.token });
      const body = {
        projectId: t.projectId,
        name: "Two trips",
        actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
      };
      const created = await call("POST", "/automation", { token: t.owner.token, body });
      expect(created.status).toBe(200);
      expect(trips(created)).toBe(2);
      const keyed = await call("POST", "/automation", {
        token: t.owner.token,
        body,
        headers: { "idempotency-key": `auto-${Date.now()}` },
      });
      expect(keyed.status).toBe(200);
      expect(trips(keyed)).toBe(3);
      const id = created.body.data._id;
      const run = await call("POST", `/automation/${id}/run`, { token: t.owner.token });
      expect(run.status).toBe(200);
      expect(trips(run)).toBe(2);
      const retried = await call("POST", `/automation/run/${run.body.data._id}/retry`, { token: t.owner.token });
      expect(retried.status).toBe(200);
      expect(retried.body.data.retryOf).toBe(run.body.data._id);
      expect(trips(retried)).toBe(2);
      const rotated = await call("POST", `/automation/${id}/webhook-secret/rotate`, { token: t.owner.token });
      expect(rotated.status).toBe(200);
      expect(trips(rotated)).toBe(2);
      // A trigger watching a project the caller cannot read is as absent as any other. Another organization's project
      // is asked in its own database once the first read holds (docs/scaling.md "Triggers across organizations").
      const other = await seedTenant();
      const hidden = await call("POST", "/automation", {
        token: t.owner.token,
        body: { ...body, triggers: [{ event: "row.created", projectId: other.projectId }] },
      });
      expect(hidden.status).toBe(404);
      expect(trips(hidden)).toBe(2);
      // Existence before meaning (docs/api-guide.md › Conventions): the unreadable project answers, not the bad schedule beside it.
      const both = await call("POST", "/automation", {
        token: t.owner.token,
        body: { ...body, triggers: [{ event: "row.created", projectId: other.projectId }, { cron: "not a cron" }] },
      });
      expect(both.status).toBe(404);
      // An outsider learns nothing, and a bad token is 401 before anything.
      expect((await call("POST", `/automation/${id}/run`, { token: other.owner.token })).status).toBe(404);
      expect((await call("POST", `/automation/${id}/webhook-secret/rotate`, { token: other.owner.token })).status).toBe(
        404,
      );
      expect((await call("POST", "/automation", { token: other.owner.token, body })).status).toBe(404);
      expect((await call("POST", `/automation/${id}/run`, { token: "nope" })).status).toBe(401);
    });
  });
});
