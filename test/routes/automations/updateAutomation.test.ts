/** updateAutomation: PATCH /automation/{id} (src/routes/automations/update.ts) — its happy path, errors and request-path checks. */
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
      expectError(
        await call("GET", `/automation/all/${t.projectId}`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/automation", { token: t.viewer.token, body: { projectId: t.projectId, name: "x" } }),
        403,
        "ForbiddenError",
      );
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
  });
});

/**
 * Automation records under concurrency and at scale (docs/api-guide.md): two PATCHes of different members both
 * take effect; the project listing pages past 1,000 with a cursor; webhook URLs are shown in full only to those
 * who may change the automation.
 */
describe("records", () => {
  describe("no lost updates", () => {
    it("concurrent PATCHes of description and actions from two tokens: both changes stay, 20 times out of 20", async () => {
      const admin = await registerUser("Admin");
      await addWorkspaceCollaborator(t.owner, t.workspaceId, admin, "admin");
      const a = (
        await ok("POST", "/automation", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: "Race", actions: [] },
        })
      ).data;
      for (let i = 0; i < 20; i++) {
        const [d, x] = await Promise.all([
          call("PATCH", `/automation/${a._id}`, { token: t.owner.token, body: { description: `d${i}` } }),
          call("PATCH", `/automation/${a._id}`, {
            token: admin.token,
            body: { actions: [{ id: `n${i}`, spec: { kind: "notify", title: `t${i}` } }] },
          }),
        ]);
        expect([d.status, x.status]).toEqual([200, 200]);
        const now = (await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data;
        expect(now.description).toBe(`d${i}`);
        expect(now.actions.map((y: any) => y.id)).toEqual([`n${i}`]);
      }
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
    it("PATCH with a stale If-Match is 412 and changes nothing; the current one succeeds and answers the new ETag", async () => {
      const a = await createAutomation();
      const etag = (await call("GET", `/automation/${a._id}`, { token: t.owner.token })).headers.get("etag")!;
      const stale = await call("PATCH", `/automation/${a._id}`, {
        token: t.owner.token,
        headers: { "if-match": '"0000"' },
        body: { name: "No" },
      });
      expect(stale.status).toBe(412);
      expect(stale.body.error).toBe("PreconditionFailedError");
      expect((await ok("GET", `/automation/${a._id}`, { token: t.owner.token })).data.name).toBe("Conditional");
      const fresh = await call("PATCH", `/automation/${a._id}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { name: "Yes" },
      });
      expect(fresh.status).toBe(200);
      const after = await call("GET", `/automation/${a._id}`, { token: t.owner.token });
      expect(fresh.headers.get("etag")).toBe(after.headers.get("etag"));
    });
  });
});
