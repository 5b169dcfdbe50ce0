import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  uniqueEmail,
  type RegisteredUser,
} from "../../support/harness";
import { expectWorkspaceShape } from "../../support/shapes";

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

  describe("POST /workspace", () => {
    it("creates a workspace owned by the caller", async () => {
      const res = await ok("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "Legal", description: "Contracts", isShared: true },
      });
      expectWorkspaceShape(res.data);
      expect(res.data).toMatchObject({
        name: "Legal",
        description: "Contracts",
        isShared: true,
        isDefault: false,
        organizationId: orgId,
        ownerId: owner.id,
        collaborators: [{ userId: owner.id, role: "owner" }],
      });
      expect(res.data.updatedAt).toBe(res.data.createdAt);
      const again = await ok("GET", `/workspace/${res.data._id}`, { token: owner.token });
      expect(again.data).toEqual(res.data);
    });

    it('defaults description to "" and isShared to false', async () => {
      const res = await ok("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "Plain" },
      });
      expect(res.data).toMatchObject({ description: "", isShared: false, isDefault: false });
    });

    it("any organization member may create one; a non-member gets 404", async () => {
      const res = await ok("POST", "/workspace", {
        token: orgMember.token,
        body: { organizationId: orgId, name: "Mine" },
      });
      expect(res.data.ownerId).toBe(orgMember.id);
      expectError(
        await call("POST", "/workspace", { token: outsider.token, body: { organizationId: orgId, name: "Intrusion" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { organizationId: "no-such-org", name: "x" } }),
        404,
        "NotFoundError",
      );
      // Nothing was created in the organization by the outsider.
      const list = await ok("GET", `/workspace/all/${orgId}`, { token: owner.token });
      expect(list.data.map((w: any) => w.name)).not.toContain("Intrusion");
    });

    it("validates its body", async () => {
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { name: "x" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { organizationId: orgId, name: "" } }),
        400,
        "ValidationError",
      );
      const extra = await call("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "x", isDefautl: true },
      });
      expectError(extra, 400, "ValidationError");
      expect(extra.body.details.map((d: any) => d.path)).toEqual(["isDefautl"]);
    });
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

  describe("GET /workspace/{id}", () => {
    it("any collaborator reads it; others get 404", async () => {
      for (const u of [owner, admin, editor, viewer]) {
        const res = await ok("GET", `/workspace/${wsId}`, { token: u.token });
        expectWorkspaceShape(res.data);
        expect(res.data._id).toBe(wsId);
      }
      expectError(await call("GET", `/workspace/${wsId}`, { token: outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", `/workspace/${wsId}`, { token: orgMember.token }), 404, "NotFoundError");
      expectError(await call("GET", "/workspace/no-such-ws", { token: owner.token }), 404, "NotFoundError");
    });
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

  describe("POST /workspace/{id}/collaborator", () => {
    it("adds a collaborator, who also joins the organization and sees the workspace in E17", async () => {
      const fresh = await registerUser("Fresh");
      expect((await ok("GET", `/workspace/all/${orgId}`, { token: fresh.token })).data).toEqual([]);
      const res = await ok("POST", `/workspace/${wsId}/collaborator`, {
        token: owner.token,
        body: { email: fresh.email, role: "editor" },
      });
      // The answer names no user: it is the same for an email without an account (member-invitations.test.ts).
      expect(res.data).toEqual({ workspaceId: wsId, email: fresh.email.toLowerCase(), role: "editor" });
      const orgs = await ok("GET", "/organization/all", { token: fresh.token });
      expect(orgs.data.find((o: any) => o._id === orgId)?.role).toBe("member");
      const e17 = await ok("GET", `/workspace/all/${orgId}`, { token: fresh.token });
      expect(e17.data.map((w: any) => w._id)).toEqual([wsId]);
      expect((await ok("GET", `/workspace/${wsId}`, { token: fresh.token })).data.collaborators).toContainEqual({
        userId: fresh.id,
        role: "editor",
      });
    });

    it("changes an existing collaborator's role (and an admin may do it)", async () => {
      await ok("POST", `/workspace/${wsId}/collaborator`, {
        token: admin.token,
        body: { email: editor.email, role: "viewer" },
      });
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.collaborators.filter((c: any) => c.userId === editor.id)).toEqual([
        { userId: editor.id, role: "viewer" },
      ]);
      // Now a viewer: writes are forbidden.
      expectError(
        await call("POST", "/project", { token: editor.token, body: { workspaceId: wsId, name: "p" } }),
        403,
        "ForbiddenError",
      );
    });

    it("does not change an existing organization role", async () => {
      const orgAdmin = await registerUser("Org admin collaborator");
      await ok("POST", `/organization/${orgId}/member`, {
        token: owner.token,
        body: { email: orgAdmin.email, role: "admin" },
      });
      await ok("POST", `/workspace/${wsId}/collaborator`, {
        token: owner.token,
        body: { email: orgAdmin.email, role: "viewer" },
      });
      const orgs = await ok("GET", "/organization/all", { token: orgAdmin.token });
      expect(orgs.data.find((o: any) => o._id === orgId)?.role).toBe("admin");
    });

    it("the owner's role cannot be changed (409); role owner cannot be granted (400)", async () => {
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: admin.token,
          body: { email: owner.email, role: "viewer" },
        }),
        409,
        "ConflictError",
      );
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: owner.token,
          body: { email: owner.email, role: "admin" },
        }),
        409,
        "ConflictError",
      );
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: owner.token,
          body: { email: viewer.email, role: "owner" },
        }),
        400,
        "ValidationError",
      );
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.collaborators[0]).toEqual({ userId: owner.id, role: "owner" });
    });

    it("an unknown email is a pending invitation (200); an editor is 403; an outsider 404; a bad email 400", async () => {
      expect(
        (
          await call("POST", `/workspace/${wsId}/collaborator`, {
            token: owner.token,
            body: { email: uniqueEmail("ghost"), role: "viewer" },
          })
        ).status,
      ).toBe(200);
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: editor.token,
          body: { email: outsider.email, role: "viewer" },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: outsider.token,
          body: { email: outsider.email, role: "admin" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, {
          token: owner.token,
          body: { email: "bad", role: "viewer" },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", `/workspace/${wsId}/collaborator`, { token: owner.token, body: { email: outsider.email } }),
        400,
        "ValidationError",
      );
      expectError(await call("GET", `/workspace/${wsId}`, { token: outsider.token }), 404, "NotFoundError");
    });
  });

  describe("DELETE /workspace/{id}/collaborator/{userId}", () => {
    /** Each test removes its own collaborator, so no test depends on another's removals. */
    async function freshCollaborator(role: "admin" | "editor" | "viewer") {
      const u = await registerUser(`Removable ${role}`);
      await addWorkspaceCollaborator(owner, wsId, u, role);
      return u;
    }

    it("the owner removes a collaborator, who then loses access", async () => {
      const gone = await freshCollaborator("editor");
      await ok("GET", `/workspace/${wsId}`, { token: gone.token });
      const res = await ok("DELETE", `/workspace/${wsId}/collaborator/${gone.id}`, { token: owner.token });
      expectWorkspaceShape(res.data);
      expect(res.data.collaborators.map((c: any) => c.userId)).not.toContain(gone.id);
      expect(res.data.collaborators[0]).toEqual({ userId: owner.id, role: "owner" });
      expectError(await call("GET", `/workspace/${wsId}`, { token: gone.token }), 404, "NotFoundError");
      expect((await ok("GET", `/workspace/all/${orgId}`, { token: gone.token })).data).toEqual([]);
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${gone.id}`, { token: owner.token }),
        404,
        "NotFoundError",
      );
    });

    it("an admin removes a collaborator", async () => {
      const gone = await freshCollaborator("viewer");
      const res = await ok("DELETE", `/workspace/${wsId}/collaborator/${gone.id}`, { token: admin.token });
      expect(res.data.collaborators.map((c: any) => c.userId)).not.toContain(gone.id);
      expectError(await call("GET", `/workspace/${wsId}`, { token: gone.token }), 404, "NotFoundError");
    });

    it("anyone may remove themselves", async () => {
      const leaving = await freshCollaborator("viewer");
      const res = await ok("DELETE", `/workspace/${wsId}/collaborator/${leaving.id}`, { token: leaving.token });
      expect(res.data.collaborators.map((c: any) => c.userId)).not.toContain(leaving.id);
      expectError(await call("GET", `/workspace/${wsId}`, { token: leaving.token }), 404, "NotFoundError");
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.collaborators.map((c: any) => c.userId)).not.toContain(leaving.id);
    });

    it("the owner cannot be removed, not even by themselves (409)", async () => {
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${owner.id}`, { token: admin.token }),
        409,
        "ConflictError",
      );
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${owner.id}`, { token: owner.token }),
        409,
        "ConflictError",
      );
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.collaborators[0]).toEqual({ userId: owner.id, role: "owner" });
    });

    it("an editor cannot remove others (403); an outsider gets 404; a non-collaborator id is 404", async () => {
      const [ed, target] = await Promise.all([freshCollaborator("editor"), freshCollaborator("viewer")]);
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${target.id}`, { token: ed.token }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${target.id}`, { token: outsider.token }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${outsider.id}`, { token: outsider.token }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/${outsider.id}`, { token: owner.token }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("DELETE", `/workspace/${wsId}/collaborator/bad%20id`, { token: owner.token }),
        400,
        "ValidationError",
      );
      const ws = await ok("GET", `/workspace/${wsId}`, { token: owner.token });
      expect(ws.data.collaborators).toContainEqual({ userId: target.id, role: "viewer" });
    });
  });
});
