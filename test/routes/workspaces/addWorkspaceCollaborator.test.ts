/** addWorkspaceCollaborator: POST /workspace/{id}/collaborator (src/routes/workspaces/addCollaborator.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  registerUser,
  uniqueEmail,
  type RegisteredUser,
  addWorkspaceCollaborator,
  expectError,
  ok,
} from "../../support/harness";

/**
 * Accounts cannot be probed by email (docs/api-guide.md, "Organizations and workspaces"): adding an organization
 * member or a workspace collaborator answers the same for a registered and an unregistered email (the latter is a
 * pending invitation applied at registration); notifications from one sender to one recipient are limited per hour;
 * pending invitations per organization are bounded.
 */
/** The answer with the email taken out: what must not differ between a registered and an unregistered email. */
function shape(res: { status: number; body: any }, email: string) {
  return { status: res.status, body: JSON.parse(JSON.stringify(res.body).split(email.toLowerCase()).join("<email>")) };
}

describe("members and collaborators by email answer the same whether the email is registered or not", () => {
  let owner: RegisteredUser;

  beforeAll(async () => {
    owner = await registerUser("Inviter");
  });

  it("POST /workspace/{id}/collaborator", async () => {
    const ghost = uniqueEmail("ghost");
    const other = await registerUser("Known 2");
    const registered = await call("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: other.email, role: "viewer" },
    });
    const unregistered = await call("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: ghost, role: "viewer" },
    });
    expect(registered.status).toBe(200);
    expect(shape(unregistered, ghost)).toEqual(shape(registered, other.email));
    // The registered user reads the workspace at once.
    expect((await call("GET", `/workspace/${owner.workspaceId}`, { token: other.token })).status).toBe(200);
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
});
