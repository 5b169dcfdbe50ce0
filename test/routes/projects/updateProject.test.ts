/** updateProject: PATCH /project/{id} (src/routes/projects/update.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
  seedTenant,
  type Tenant,
} from "../../support/harness";

describe("projects", () => {
  let owner: RegisteredUser,
    admin: RegisteredUser,
    editor: RegisteredUser,
    viewer: RegisteredUser,
    outsider: RegisteredUser,
    guest: RegisteredUser;
  let wsId: string;
  let p1: any, p2: any;
  let guestDocId: string;

  beforeAll(async () => {
    [owner, admin, editor, viewer, outsider, guest] = await Promise.all([
      registerUser("P Owner"),
      registerUser("P Admin"),
      registerUser("P Editor"),
      registerUser("P Viewer"),
      registerUser("P Outsider"),
      registerUser("P Guest"),
    ]);
    wsId = owner.workspaceId;
    await addWorkspaceCollaborator(owner, wsId, admin, "admin");
    await addWorkspaceCollaborator(owner, wsId, editor, "editor");
    await addWorkspaceCollaborator(owner, wsId, viewer, "viewer");
    p1 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P1" } })).data;
    p2 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P2" } })).data;
    await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P3" } });
    const doc = await ok("POST", "/document", {
      token: owner.token,
      body: { projectId: p2._id, name: "Shared", type: "DOCUMENT" },
    });
    guestDocId = doc.data._id;
    await ok("POST", "/document/invite-user", {
      token: owner.token,
      body: { email: guest.email, documentId: guestDocId },
    });
  });

  describe("PATCH /project/{id}", () => {
    it("an editor updates the settable members; others stay", async () => {
      const project = (
        await ok("POST", "/project", {
          token: owner.token,
          body: { workspaceId: wsId, name: "Patchable", icon: { name: "a", color: "b" } },
        })
      ).data;
      const res = await ok("PATCH", `/project/${project._id}`, {
        token: editor.token,
        body: {
          name: "Patched",
          description: "desc",
          reference: "R",
          emoji: { unified: "1f4c4", emojiStyle: "google" },
        },
      });
      expect(res.data).toEqual({
        ...project,
        name: "Patched",
        description: "desc",
        reference: "R",
        emoji: { unified: "1f4c4", emojiStyle: "google" },
        updatedAt: expect.any(Number),
      });
      expect(res.data.updatedAt).toBeGreaterThanOrEqual(project.updatedAt);
      expect((await ok("GET", `/project/${project._id}`, { token: viewer.token })).data).toEqual(res.data);
      // null clears icon/emoji.
      const cleared = await ok("PATCH", `/project/${project._id}`, {
        token: owner.token,
        body: { icon: null, emoji: null },
      });
      expect(cleared.data).toMatchObject({ icon: null, emoji: null, name: "Patched" });
    });

    it("accepts the record's response-only members and ignores them", async () => {
      const project = (
        await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "Round trip" } })
      ).data;
      const sentBack = {
        ...project,
        name: "Round trip 2",
        _id: "other",
        userId: outsider.id,
        workspaceId: outsider.workspaceId,
        originId: "origin",
        createdAt: 1,
        updatedAt: 1,
        published: [{ slug: "s", domain: "", homepage: "", password: "", disabled: false }],
        publishedBranding: { company: { name: "x" } },
      };
      const res = await ok("PATCH", `/project/${project._id}`, { token: owner.token, body: sentBack });
      expect(res.data).toEqual({ ...project, name: "Round trip 2", updatedAt: expect.any(Number) });
      expect((await ok("GET", `/project/all/${wsId}`, { token: owner.token })).data.map((p: any) => p._id)).toContain(
        project._id,
      );
    });

    it("a viewer gets 403; a document-only guest 403; an outsider 404; an unknown member 400", async () => {
      expectError(
        await call("PATCH", `/project/${p2._id}`, { token: viewer.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/project/${p2._id}`, { token: guest.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PATCH", `/project/${p1._id}`, { token: guest.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PATCH", `/project/${p2._id}`, { token: outsider.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      const unknown = await call("PATCH", `/project/${p2._id}`, { token: owner.token, body: { color: "red" } });
      expectError(unknown, 400, "ValidationError");
      expect(unknown.body.details.map((d: any) => d.path)).toEqual(["color"]);
      expect((await ok("GET", `/project/${p2._id}`, { token: owner.token })).data.name).toBe("P2");
    });
  });
});

/** Project routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E12 in one round trip, ETag/304, If-Match/412. */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("projects on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.docId, role: "viewer" },
    });
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("PATCH with the current ETag succeeds; a stale one is 412 and changes nothing", async () => {
    const etag = (await call("GET", `/project/${t.projectId}`, { token: t.owner.token })).headers.get("etag")!;
    const updated = await call("PATCH", `/project/${t.projectId}`, {
      token: t.editor.token,
      headers: { "if-match": etag },
      body: { name: "Renamed" },
    });
    expect(updated.status).toBe(200);
    expect(trips(updated.headers)).toBeLessThanOrEqual(3);
    const fresh = await call("GET", `/project/${t.projectId}`, { token: t.owner.token });
    expect(updated.headers.get("etag")).toBe(fresh.headers.get("etag"));
    const stale = await call("PATCH", `/project/${t.projectId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Lost update" },
    });
    expectError(stale, 412, "PreconditionFailedError");
    expect((await ok("GET", `/project/${t.projectId}`, { token: t.owner.token })).data.name).toBe("Renamed");
    const star = await call("PATCH", `/project/${t.projectId}`, {
      token: t.owner.token,
      headers: { "if-match": "*" },
      body: { reference: "P-1" },
    });
    expect(star.status).toBe(200);
  });
});
