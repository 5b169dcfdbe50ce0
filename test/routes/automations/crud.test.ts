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

let t: Tenant;
let admin: RegisteredUser;
let tableId: string;

beforeAll(async () => {
  t = await seedTenant();
  admin = await registerUser("Admin");
  await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
  tableId = (await makeTable(t.owner.token, t.projectId)).tableId;
});

const create = (token: string, body: Record<string, unknown>) => call("POST", "/automation", { token, body });

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
    expect((await ok("GET", `/automation/${a._id}`, { token: admin.token })).data.webhookSecret).toBe(a.webhookSecret);

    const list = await ok("GET", `/automation/all/${t.projectId}`, { token: t.viewer.token });
    expect(list.data.map((x: any) => x._id)).toContain(a._id);
  });

  it("E2: owner and project admin change it; a non-owner editor gets 403; an outsider 404", async () => {
    const a = (
      await ok("POST", "/automation", { token: t.editor.token, body: { projectId: t.projectId, name: "Mine" } })
    ).data;
    const byOwner = await ok("PATCH", `/automation/${a._id}`, {
      token: t.editor.token,
      body: { name: "Renamed", triggers: [{ event: "row.updated" }] },
    });
    expect(byOwner.data.name).toBe("Renamed");
    expect(byOwner.data.triggers[0]).toMatchObject({ type: "event", event: "row.updated" });
    const byAdmin = await ok("PATCH", `/automation/${a._id}`, { token: admin.token, body: { enabled: false } });
    expect(byAdmin.data.enabled).toBe(false);

    const editor2 = await registerUser("Editor 2");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, editor2, "editor");
    expectError(
      await call("PATCH", `/automation/${a._id}`, { token: editor2.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", `/automation/${a._id}`, { token: t.viewer.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", `/automation/${a._id}`, { token: t.outsider.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", `/automation/${a._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/automation/${a._id}`, { token: editor2.token }), 403, "ForbiddenError");
    expectError(
      await call("POST", `/automation/${a._id}/webhook-secret/rotate`, { token: editor2.token }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PATCH", "/automation/nope", { token: t.owner.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(await call("GET", `/automation/all/${t.projectId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("POST", "/automation", { token: t.viewer.token, body: { projectId: t.projectId, name: "x" } }),
      403,
      "ForbiddenError",
    );
  });

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

  it("E2 returns each Condition with its returned-only members kind and conjunction", async () => {
    const a = (
      await ok("POST", "/automation", { token: t.owner.token, body: { projectId: t.projectId, name: "Filtered" } })
    ).data;
    const columnId = (await ok("GET", `/table/columns/${tableId}`, { token: t.owner.token })).data[0]._id;
    const predicates = [{ columnId, op: "eq", value: "x" }];
    const group = { predicates: [{ columnId, op: "isEmpty" }] };
    const res = await ok("PATCH", `/automation/${a._id}`, {
      token: t.owner.token,
      body: {
        conditions: { group, predicates },
        actions: [{ id: "n", spec: { kind: "notify", title: "Hi" }, condition: { predicates } }],
      },
    });
    const want = { kind: "rowFilter", conjunction: "and", group, predicates };
    expect(res.data.conditions).toEqual(want);
    expect(res.data.actions[0].condition).toEqual({ kind: "rowFilter", conjunction: "and", predicates });
    expect((await ok("GET", `/automation/${a._id}`, { token: t.viewer.token })).data.conditions).toEqual(want);
    // What was returned is accepted back unchanged, and an explicit conjunction is kept.
    const back = await ok("PATCH", `/automation/${a._id}`, {
      token: t.owner.token,
      body: { conditions: { ...res.data.conditions, conjunction: "or" } },
    });
    expect(back.data.conditions).toEqual({ ...want, conjunction: "or" });
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

  it("rotates the secret, deletes, and a deleted automation is gone", async () => {
    const a = (await ok("POST", "/automation", { token: t.owner.token, body: { projectId: t.projectId, name: "Del" } }))
      .data;
    const rotated = await ok("POST", `/automation/${a._id}/webhook-secret/rotate`, { token: admin.token });
    expect(rotated.data.webhookSecret).toMatch(/^whsec_/);
    expect(rotated.data.webhookSecret).not.toBe(a.webhookSecret);
    expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.webhookSecret).toBe(
      rotated.data.webhookSecret,
    );
    await ok("DELETE", `/automation/${a._id}`, { token: t.owner.token });
    expectError(await call("GET", `/automation/${a._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expect(
      (await ok("GET", `/automation/all/${t.projectId}`, { token: t.owner.token })).data.map((x: any) => x._id),
    ).not.toContain(a._id);
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
