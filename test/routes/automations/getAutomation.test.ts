/** getAutomation: GET /automation/{id} (src/routes/automations/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
  call,
} from "../../support/harness";
import { makeTable } from "../../support/tableHarness";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("crud", () => {
  let admin: RegisteredUser;
  let tableId: string;

  beforeAll(async () => {
    admin = await registerUser("Admin");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
    tableId = (await makeTable(t.owner.token, t.projectId)).tableId;
  });

  describe("automation CRUD and E2", () => {
    it("creates, reads back with derived trigger members, and lists", async () => {
      const res = await ok("POST", "/automation", {
        token: t.editor.token,
        body: {
          projectId: t.projectId,
          name: "Weekly fill",
          triggers: [
            { cron: "0 9 * * 1", timezone: "Europe/Berlin" },
            { event: "row.created", filter: { tableId } },
            { runAt: Date.now() + 3_600_000 },
            {},
          ],
          actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
          behavior: { operationBudget: 50 },
        },
      });
      const a = res.data;
      expect(a).toMatchObject({
        projectId: t.projectId,
        workspaceId: t.workspaceId,
        ownerId: t.editor.id,
        createdBy: t.editor.id,
        enabled: true,
        consecutiveFailures: 0,
        lastRunAt: null,
        behavior: {
          maxDurationMs: 30_000,
          operationBudget: 50,
          maxAffectedRows: 1000,
          externalWriteBudget: 10,
          allowDocumentWrites: false,
        },
        notify: { inApp: false, email: false },
      });
      expect(a.triggers.map((x: any) => [x.type, x.mode, x.event, x.provider])).toEqual([
        ["schedule", "recurring", null, "internal"],
        ["event", "recurring", "row.created", "internal"],
        ["schedule", "once", null, "internal"],
        ["manual", "once", null, "internal"],
      ]);
      expect(a.webhookSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      // nextRunAt is the earlier of the Monday 9:00 Berlin and the runAt an hour from now.
      expect(a.nextRunAt).toBeGreaterThan(Date.now());
      expect(a.nextRunAt).toBeLessThanOrEqual(Date.now() + 3_600_000);

      const got = await ok("GET", `/automation/${a._id}`, { token: t.viewer.token });
      expect(got.data.name).toBe("Weekly fill");
      expect(got.data.webhookSecret).toBeUndefined();
      expect((await ok("GET", `/automation/${a._id}`, { token: admin.token })).data.webhookSecret).toBe(
        a.webhookSecret,
      );

      const list = await ok("GET", `/automation/all/${t.projectId}`, { token: t.viewer.token });
      expect(list.data.map((x: any) => x._id)).toContain(a._id);
    });
  });
});

/** Conditional requests on automations (docs/api-guide.md › HTTP semantics: retries, caching, replicas): strong ETag and 304 on GET, If-Match on PATCH (E2) and DELETE. */
describe("request-path", () => {
  const createAutomation = async () =>
    (
      await ok("POST", "/automation", {
        token: t.owner.token,
        body: {
          projectId: t.projectId,
          name: "Conditional",
          actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
        },
      })
    ).data;

  describe("automation ETags", () => {
    it("GET carries a strong ETag and answers 304 on If-None-Match; the ETag changes with the record", async () => {
      const a = await createAutomation();
      const first = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      expect(
        (await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } }))
          .status,
      ).toBe(304);
      await ok("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { name: "Renamed" } });
      expect(
        (await call("GET", `/automation/${a._id}`, { token: t.owner.token, headers: { "if-none-match": etag } }))
          .status,
      ).toBe(200);
    });
  });
});
