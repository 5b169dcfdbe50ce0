/** A workspace with one user per role and an organization member outside it, for the workspaces' operation tests (test/routes/workspaces/). */
import { addWorkspaceCollaborator, ok, registerUser, type RegisteredUser } from "./harness";

export interface WorkspacesFixture {
  owner: RegisteredUser;
  admin: RegisteredUser;
  editor: RegisteredUser;
  viewer: RegisteredUser;
  outsider: RegisteredUser;
  /** A member of the owner's organization who is no collaborator of the workspace. */
  orgMember: RegisteredUser;
  orgId: string;
  wsId: string;
}

export async function workspacesFixture(): Promise<WorkspacesFixture> {
  const [owner, admin, editor, viewer, outsider, orgMember] = await Promise.all([
    registerUser("WS Owner"),
    registerUser("WS Admin"),
    registerUser("WS Editor"),
    registerUser("WS Viewer"),
    registerUser("WS Outsider"),
    registerUser("WS Org Member"),
  ]);
  const orgId = owner.organizationId;
  const wsId = owner.workspaceId;
  await addWorkspaceCollaborator(owner, wsId, admin, "admin");
  await addWorkspaceCollaborator(owner, wsId, editor, "editor");
  await addWorkspaceCollaborator(owner, wsId, viewer, "viewer");
  await ok("POST", `/organization/${orgId}/member`, { token: owner.token, body: { email: orgMember.email } });
  return { owner, admin, editor, viewer, outsider, orgMember, orgId, wsId };
}
