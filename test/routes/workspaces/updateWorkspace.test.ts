/** updateWorkspace: PATCH /workspace/{id} (src/routes/workspaces/update.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  seedTenant,
  type Tenant,
  addWorkspaceCollaborator,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";

/** Workspace routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E17 in one round trip, ETag/304, If-Match/412. */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("workspaces on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("PATCH with the current ETag succeeds; a stale one is 412 and changes nothing", async () => {
    const etag = (await call("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).headers.get("etag")!;
    const updated = await call("PATCH", `/workspace/${t.workspaceId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Renamed" },
    });
    expect(updated.status).toBe(200);
    expect(trips(updated.headers)).toBeLessThanOrEqual(3);
    expect(updated.headers.get("etag")).toBe(
      (await call("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).headers.get("etag"),
    );
    const stale = await call("PATCH", `/workspace/${t.workspaceId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Lost update" },
    });
    expectError(stale, 412, "PreconditionFailedError");
    expect((await ok("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).data.name).toBe("Renamed");
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

  describe("PATCH /workspace/{id}", () => {
    it("the owner and an admin update name, description and isShared", async () => {
      const before = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      const res = await ok("PATCH", `/workspace/${wsId}`, {
        token: owner.token,
        body: { name: "Renamed", description: "New", isShared: true },
      });
      expect(res.data).toMatchObject({
        ...before.data,
        name: "Renamed",
        description: "New",
        isShared: true,
        updatedAt: expect.any(Number),
      });
      expect(res.data.updatedAt).toBeGreaterThanOrEqual(before.data.updatedAt);
      const reread = await ok("GET", `/workspace/${wsId}`, { token: viewer.token });
      expect(reread.data).toEqual(res.data);
      const byAdmin = await ok("PATCH", `/workspace/${wsId}`, {
        token: admin.token,
        body: { description: "By admin" },
      });
      expect(byAdmin.data).toMatchObject({ name: "Renamed", description: "By admin" });
    });

    it("accepts the record's response-only members and ignores them", async () => {
      const current = (await ok("GET", `/workspace/${wsId}`, { token: owner.token })).data;
      const sentBack = {
        ...current,
        name: "Round trip",
        _id: "someone-else",
        isDefault: !current.isDefault,
        organizationId: "other-org",
        ownerId: outsider.id,
        collaborators: [{ userId: outsider.id, role: "owner" }],
        createdAt: 1,
        updatedAt: 2,
      };
      const res = await ok("PATCH", `/workspace/${wsId}`, { token: owner.token, body: sentBack });
      expect(res.data).toMatchObject({
        _id: wsId,
        name: "Round trip",
        isDefault: current.isDefault,
        organizationId: orgId,
        ownerId: owner.id,
        collaborators: current.collaborators,
        createdAt: current.createdAt,
      });
      expect(res.data.updatedAt).toBeGreaterThanOrEqual(current.updatedAt);
      expectError(await call("GET", `/workspace/${wsId}`, { token: outsider.token }), 404, "NotFoundError");
    });

    it("an empty body changes nothing but updatedAt", async () => {
      const current = (await ok("GET", `/workspace/${wsId}`, { token: owner.token })).data;
      const res = await ok("PATCH", `/workspace/${wsId}`, { token: owner.token, body: {} });
      expect({ ...res.data, updatedAt: 0 }).toEqual({ ...current, updatedAt: 0 });
    });

    it("an editor or viewer gets 403, an outsider 404, an unknown member 400", async () => {
      expectError(
        await call("PATCH", `/workspace/${wsId}`, { token: editor.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/workspace/${wsId}`, { token: viewer.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/workspace/${wsId}`, { token: outsider.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      const unknown = await call("PATCH", `/workspace/${wsId}`, {
        token: owner.token,
        body: { name: "x", color: "blue" },
      });
      expectError(unknown, 400, "ValidationError");
      expect(unknown.body.details.map((d: any) => d.path)).toEqual(["color"]);
      expectError(
        await call("PATCH", `/workspace/${wsId}`, { token: owner.token, body: { isShared: "yes" } }),
        400,
        "ValidationError",
      );
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.name).not.toBe("x");
    });
  });
});
