/** removeWorkspaceCollaborator: DELETE /workspace/{id}/collaborator/{userId} (src/routes/workspaces/removeCollaborator.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
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
