/** listWorkspaces: GET /workspace/all/{orgId} (src/routes/workspaces/listByOrganization.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  seedTenant,
  type Tenant,
  addWorkspaceCollaborator,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";
import { expectWorkspaceShape } from "../../support/shapes";

/** Workspace routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E17 in one round trip, ETag/304, If-Match/412. */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("workspaces on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E17 costs one round trip, for a member and for a stranger (empty list)", async () => {
    const mine = await call("GET", `/workspace/all/${t.organizationId}`, { token: t.viewer.token });
    expect(mine.status).toBe(200);
    expect(trips(mine.headers)).toBe(1);
    expect(mine.body.data.map((w: { _id: string }) => w._id)).toEqual([t.workspaceId]);
    expect(mine.body.data[0].collaborators).toHaveLength(3);
    const stranger = await call("GET", `/workspace/all/${t.organizationId}`, { token: t.outsider.token });
    expect(stranger.body).toEqual({ data: [] });
    expect(trips(stranger.headers)).toBe(1);
  });
});

describe("workspaces", () => {
  let owner: RegisteredUser,
    admin: RegisteredUser,
    editor: RegisteredUser,
    viewer: RegisteredUser,
    outsider: RegisteredUser,
    orgMember: RegisteredUser;
  let orgId: string;
  let wsId: string;
  beforeAll(async () => {
    [owner, admin, editor, viewer, outsider, orgMember] = await Promise.all([
      registerUser("WS Owner"),
      registerUser("WS Admin"),
      registerUser("WS Editor"),
      registerUser("WS Viewer"),
      registerUser("WS Outsider"),
      registerUser("WS Org Member"),
    ]);
    orgId = owner.organizationId;
    wsId = owner.workspaceId;
    await addWorkspaceCollaborator(owner, wsId, admin, "admin");
    await addWorkspaceCollaborator(owner, wsId, editor, "editor");
    await addWorkspaceCollaborator(owner, wsId, viewer, "viewer");
    await ok("POST", `/organization/${orgId}/member`, { token: owner.token, body: { email: orgMember.email } });
  });

  describe("E17 GET /workspace/all/{orgId}", () => {
    it("lists, in creation order, the organization's workspaces the caller collaborates on", async () => {
      const a = await ok("POST", "/workspace", { token: owner.token, body: { organizationId: orgId, name: "E17 A" } });
      const b = await ok("POST", "/workspace", { token: owner.token, body: { organizationId: orgId, name: "E17 B" } });
      const c = await ok("POST", "/workspace", {
        token: orgMember.token,
        body: { organizationId: orgId, name: "E17 C (not shared with owner)" },
      });
      const list = await ok("GET", `/workspace/all/${orgId}`, { token: owner.token });
      const ids = list.data.map((w: any) => w._id);
      expect(ids[0]).toBe(wsId);
      expect(ids.indexOf(a.data._id)).toBeLessThan(ids.indexOf(b.data._id));
      expect(ids).not.toContain(c.data._id);
      for (const w of list.data) {
        expectWorkspaceShape(w);
        expect(w.organizationId).toBe(orgId);
        expect(w.collaborators).toContainEqual({ userId: owner.id, role: expect.any(String) });
      }
      const createdAts = list.data.map((w: any) => w.createdAt);
      expect([...createdAts].sort((x: number, y: number) => x - y)).toEqual(createdAts);
      const def = list.data.find((w: any) => w._id === wsId);
      expect(def.collaborators).toEqual([
        { userId: owner.id, role: "owner" },
        { userId: admin.id, role: "admin" },
        { userId: editor.id, role: "editor" },
        { userId: viewer.id, role: "viewer" },
      ]);
    });

    it("an organization member sees only workspaces they collaborate on", async () => {
      const memberList = await ok("GET", `/workspace/all/${orgId}`, { token: orgMember.token });
      expect(memberList.data.map((w: any) => w._id)).not.toContain(wsId);
      const viewerList = await ok("GET", `/workspace/all/${orgId}`, { token: viewer.token });
      expect(viewerList.data.map((w: any) => w._id)).toEqual([wsId]);
    });

    it("answers [] for an organization the caller is not in, an unknown id and a malformed id", async () => {
      expect(await ok("GET", `/workspace/all/${orgId}`, { token: outsider.token })).toEqual({ data: [] });
      expect(await ok("GET", "/workspace/all/no-such-org", { token: owner.token })).toEqual({ data: [] });
      expect(await ok("GET", "/workspace/all/!!!", { token: owner.token })).toEqual({ data: [] });
      expect(await ok("GET", `/workspace/all/${"x".repeat(300)}`, { token: owner.token })).toEqual({ data: [] });
      expect(await ok("GET", "/workspace/all/a%20b", { token: owner.token })).toEqual({ data: [] });
      // Another organization's id, even one the caller owns, lists only that organization.
      expect((await ok("GET", `/workspace/all/${outsider.organizationId}`, { token: owner.token })).data).toEqual([]);
    });

    it("needs a token (401 is its only error)", async () => {
      expectError(await call("GET", `/workspace/all/${orgId}`), 401, "UnauthorizedError");
      expectError(await call("GET", "/workspace/all/!!!"), 401, "UnauthorizedError");
    });
  });
});
