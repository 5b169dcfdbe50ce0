/** A workspace with one user per role, three projects and a guest on one document, for the projects' operation tests (test/routes/projects/). */
import { addWorkspaceCollaborator, ok, registerUser, type RegisteredUser } from "./harness";

export interface ProjectsFixture {
  owner: RegisteredUser;
  admin: RegisteredUser;
  editor: RegisteredUser;
  viewer: RegisteredUser;
  outsider: RegisteredUser;
  /** Invited to one document of p2 only. */
  guest: RegisteredUser;
  wsId: string;
  p1: any;
  p2: any;
  p3: any;
  guestDocId: string;
}

export async function projectsFixture(): Promise<ProjectsFixture> {
  const [owner, admin, editor, viewer, outsider, guest] = await Promise.all([
    registerUser("P Owner"),
    registerUser("P Admin"),
    registerUser("P Editor"),
    registerUser("P Viewer"),
    registerUser("P Outsider"),
    registerUser("P Guest"),
  ]);
  const wsId = owner.workspaceId;
  await addWorkspaceCollaborator(owner, wsId, admin, "admin");
  await addWorkspaceCollaborator(owner, wsId, editor, "editor");
  await addWorkspaceCollaborator(owner, wsId, viewer, "viewer");
  const p1 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P1" } })).data;
  const p2 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P2" } })).data;
  const p3 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P3" } })).data;
  const doc = await ok("POST", "/document", {
    token: owner.token,
    body: { projectId: p2._id, name: "Shared", type: "DOCUMENT" },
  });
  const guestDocId = doc.data._id as string;
  await ok("POST", "/document/invite-user", {
    token: owner.token,
    body: { email: guest.email, documentId: guestDocId },
  });
  return { owner, admin, editor, viewer, outsider, guest, wsId, p1, p2, p3, guestDocId };
}
