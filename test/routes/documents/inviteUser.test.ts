/** inviteUser: POST /document/invite-user (src/routes/documents/invite.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  ok,
  registerUser,
  seedTenant,
  type Tenant,
  ADMIN_TOKEN,
  expectError,
  uniqueEmail,
} from "../../support/harness";

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let t: Tenant;
  let otherProjectId: string;

  const create = async (body: Record<string, unknown>, token = t.owner.token): Promise<Doc> =>
    (await ok("POST", "/document", { token, body: { projectId: t.projectId, ...body } })).data;
  const e10 = (id: string, token = t.owner.token) => call("GET", `/document/${id}`, { token });

  beforeAll(async () => {
    t = await seedTenant();
    otherProjectId = (
      await ok("POST", "/project", {
        token: t.owner.token,
        body: { workspaceId: t.workspaceId, name: "Other project" },
      })
    ).data._id;
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: otherProjectId, name: "Other folder", type: "FOLDER" },
    });
    const outsiderProject = await ok("POST", "/project", {
      token: t.outsider.token,
      body: { workspaceId: t.outsider.workspaceId, name: "Theirs" },
    });
    await ok("POST", "/document", {
      token: t.outsider.token,
      body: { projectId: outsiderProject.data._id, name: "Their folder", type: "FOLDER" },
    });
  });

  it("a document created by a guest editor lists both grants in collaborators", async () => {
    const guest = await registerUser("Guest editor");
    const folder = await create({ name: "Guest folder", type: "FOLDER" });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: folder._id, role: "editor" },
    });
    const folderRead = await e10(folder._id, guest.token);
    expect(folderRead.body.data.collaborators).toEqual([
      { userId: t.owner.id, role: "owner" },
      { userId: guest.id, role: "editor" },
    ]);
    const d = await create({ parentId: folder._id, name: "By guest", type: "DOCUMENT" }, guest.token);
    expect(d.collaborators).toEqual([{ userId: guest.id, role: "owner" }]);
    expect((await e10(d._id, guest.token)).body.data).toEqual(d);
  });
});

/** E7 and the notifications it produces (docs/api-guide.md › Organizations and workspaces; Automations, published portals, collaborative editing). */
describe("E7 POST /document/invite-user", () => {
  let t: Tenant;

  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;
  const invite = (token: string, body: Record<string, unknown>) =>
    call("POST", "/document/invite-user", { token, body });
  const canRead = async (id: string, u: { token: string }) =>
    (await ok("GET", `/access/document/${id}`, { token: u.token })).data as boolean;
  const roleOf = async (docId: string, userId: string) =>
    (await ok("GET", `/document/${docId}`, { token: t.owner.token })).data.collaborators.find(
      (c: any) => c.userId === userId,
    )?.role;

  /** A folder with two live documents, a live subfolder with one, and a soft-deleted document: 5 covered. */
  async function folderTree() {
    const folder = await mk({ name: "Shared", type: "FOLDER" });
    const one = await mk({ parentId: folder, name: "one", type: "DOCUMENT" });
    const two = await mk({ parentId: folder, name: "two", type: "DOCUMENT" });
    const sub = await mk({ parentId: folder, name: "sub", type: "FOLDER" });
    const three = await mk({ parentId: sub, name: "three", type: "DOCUMENT" });
    const deleted = await mk({ parentId: folder, name: "deleted", type: "DOCUMENT" });
    await ok("DELETE", `/document/${deleted}`, { token: t.owner.token });
    return { folder, one, two, sub, three, deleted, live: [folder, one, two, sub, three] };
  }

  beforeAll(async () => {
    t = await seedTenant();
  });

  it("an existing user is granted the folder and its live descendants and is notified", async () => {
    const tree = await folderTree();
    const guest = await registerUser("Guest");
    for (const id of tree.live) expect(await canRead(id, guest)).toBe(false);

    const res = await invite(t.owner.token, { email: guest.email.toUpperCase(), documentId: tree.folder });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ data: { invitationsSent: 1, documentsInvited: 5, usersInvited: 1 } });

    for (const id of tree.live) {
      expect(await canRead(id, guest)).toBe(true);
      expect(await roleOf(id, guest.id)).toBe("viewer");
    }
    expect(await canRead(tree.deleted, guest)).toBe(false);
    // The default role is viewer: reading yes, writing no.
    expectError(
      await call("PATCH", `/document/${tree.one}`, { token: guest.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );

    const notes = await ok("GET", "/notification/all", { token: guest.token });
    expect(notes.data).toHaveLength(1);
    const note = notes.data[0];
    expect(note).toEqual({
      _id: expect.any(String),
      kind: "document.invited",
      title: expect.stringContaining("Shared"),
      body: expect.any(String),
      data: { documentId: tree.folder, role: "viewer", invitedBy: t.owner.id },
      isRead: false,
      readAt: null,
      createdAt: expect.any(Number),
      updatedAt: note.createdAt,
    });

    const read = await ok("POST", `/notification/${note._id}/read`, { token: guest.token });
    expect(read.data).toEqual({ ...note, isRead: true, readAt: expect.any(Number), updatedAt: read.data.readAt });
    const again = await ok("POST", `/notification/${note._id}/read`, { token: guest.token });
    expect(again.data.readAt).toBe(read.data.readAt);
    expect((await ok("GET", "/notification/all", { token: guest.token })).data).toEqual([read.data]);
    // Someone else's notification is 404, and stays unread by them.
    expectError(
      await call("POST", `/notification/${note._id}/read`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
    expectError(await call("POST", "/notification/no-such-note/read", { token: guest.token }), 404, "NotFoundError");
  });

  it("a single document covers just itself", async () => {
    const guest = await registerUser("Doc guest");
    const res = await ok("POST", "/document/invite-user", {
      token: t.editor.token,
      body: { email: guest.email, documentId: t.docId, role: "editor" },
    });
    expect(res.data).toEqual({ invitationsSent: 1, documentsInvited: 1, usersInvited: 1 });
    expect(await canRead(t.docId, guest)).toBe(true);
    expect(await canRead(t.doc2Id, guest)).toBe(false);
    expect(await canRead(t.folderId, guest)).toBe(false);
    // The editor role lets the guest edit.
    await ok("PATCH", `/document/${t.docId}`, { token: guest.token, body: { description: "edited by guest" } });
  });

  it("an unknown email is stored as pending and granted when that email registers", async () => {
    const tree = await folderTree();
    const email = uniqueEmail("pending");
    const res = await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email, documentId: tree.folder, role: "editor" },
    });
    expect(res.data).toEqual({ invitationsSent: 1, documentsInvited: 5, usersInvited: 0 });
    // A document added before registration is covered too (the grant is computed at registration).
    const added = await mk({ parentId: tree.sub, name: "added later", type: "DOCUMENT" });

    const reg = await ok("POST", "/admin/users", {
      token: ADMIN_TOKEN,
      body: { email: email.toUpperCase(), name: "Late" },
    });
    const late = { token: reg.data.token.token, id: reg.data.user._id };
    for (const id of [...tree.live, added]) {
      expect(await canRead(id, late)).toBe(true);
      expect(await roleOf(id, late.id)).toBe("editor");
    }
    expect(await canRead(tree.deleted, late)).toBe(false);
    expect(await canRead(t.docId, late)).toBe(false);
    await ok("PATCH", `/document/${tree.three}`, { token: late.token, body: { name: "edited" } });
    const projects = await ok("GET", `/project/all/${t.workspaceId}`, { token: late.token });
    expect(projects.data.map((p: any) => p._id)).toEqual([t.projectId]);
  });

  it("several pending invitations for one email are all applied", async () => {
    const email = uniqueEmail("multi");
    const d1 = await mk({ name: "m1", type: "DOCUMENT" });
    const d2 = await mk({ name: "m2", type: "DOCUMENT" });
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email, documentId: d1 } });
    await ok("POST", "/document/invite-user", {
      token: t.editor.token,
      body: { email, documentId: d2, role: "editor" },
    });
    const reg = await ok("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: "Multi" } });
    const u = { token: reg.data.token.token };
    expect(await canRead(d1, u)).toBe(true);
    expect(await canRead(d2, u)).toBe(true);
    expect(await roleOf(d1, reg.data.user._id)).toBe("viewer");
    expect(await roleOf(d2, reg.data.user._id)).toBe("editor");
  });

  it("re-inviting with a higher role upgrades; a lower role never demotes", async () => {
    const guest = await registerUser("Regrant");
    const d = await mk({ name: "regrant", type: "DOCUMENT" });
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: d, role: "viewer" },
    });
    expect(await roleOf(d, guest.id)).toBe("viewer");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: d, role: "owner" },
    });
    expect(await roleOf(d, guest.id)).toBe("owner");
    // A workspace editor inviting the document's owner as a viewer must not strip the owner role.
    const res = await ok("POST", "/document/invite-user", {
      token: t.editor.token,
      body: { email: guest.email, documentId: d, role: "viewer" },
    });
    expect(res.data.usersInvited).toBe(1);
    expect(await roleOf(d, guest.id)).toBe("owner");
    // Nor the creator's own owner grant.
    await ok("POST", "/document/invite-user", { token: t.editor.token, body: { email: t.owner.email, documentId: d } });
    expect(await roleOf(d, t.owner.id)).toBe("owner");
  });

  it("granting owner needs the owner role: a non-owner editor gets 403, the owner may", async () => {
    const guest = await registerUser("Would-be owner");
    expectError(
      await invite(t.editor.token, { email: guest.email, documentId: t.docId, role: "owner" }),
      403,
      "ForbiddenError",
    );
    expect(await canRead(t.docId, guest)).toBe(false);
    const res = await invite(t.owner.token, { email: guest.email, documentId: t.doc2Id, role: "owner" });
    expect(res.status).toBe(200);
    expect(await roleOf(t.doc2Id, guest.id)).toBe("owner");
    // A document owner (by grant) may in turn grant owner on that document.
    const third = await registerUser("Third");
    expect((await invite(guest.token, { email: third.email, documentId: t.doc2Id, role: "owner" })).status).toBe(200);
    expect(await roleOf(t.doc2Id, third.id)).toBe("owner");
  });

  it("a viewer inviting is 403; an outsider 404; missing or deleted documents 404", async () => {
    const guest = await registerUser("Nobody's guest");
    expectError(await invite(t.viewer.token, { email: guest.email, documentId: t.docId }), 403, "ForbiddenError");
    expectError(await invite(t.outsider.token, { email: guest.email, documentId: t.docId }), 404, "NotFoundError");
    expectError(await invite(t.owner.token, { email: guest.email, documentId: "no-such-doc" }), 404, "NotFoundError");
    const gone = await mk({ name: "gone", type: "DOCUMENT" });
    await ok("DELETE", `/document/${gone}`, { token: t.owner.token });
    expectError(await invite(t.owner.token, { email: guest.email, documentId: gone }), 404, "NotFoundError");
    expect(await canRead(t.docId, guest)).toBe(false);
    expect((await ok("GET", "/notification/all", { token: guest.token })).data).toEqual([]);
  });

  it("validates its body", async () => {
    const bad = await invite(t.owner.token, { email: "not-an-email", documentId: t.docId });
    expectError(bad, 400, "ValidationError");
    expect(bad.body.details.map((d: any) => d.path)).toEqual(["email"]);
    expectError(
      await invite(t.owner.token, { email: uniqueEmail(), documentId: t.docId, role: "admin" }),
      400,
      "ValidationError",
    );
    expectError(await invite(t.owner.token, { email: uniqueEmail() }), 400, "ValidationError");
    expectError(await invite(t.owner.token, { email: uniqueEmail(), documentId: "bad id" }), 400, "ValidationError");
    const extra = await invite(t.owner.token, { email: uniqueEmail(), documentId: t.docId, message: "hi" });
    expectError(extra, 400, "ValidationError");
    expect(extra.body.details.map((d: any) => d.path)).toEqual(["message"]);
  });
});
