/** createProject: POST /project (src/routes/projects/create.ts) — its happy path, errors and request-path checks. */
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
import { expectProjectShape } from "../../support/shapes";

describe("projects", () => {
  let owner: RegisteredUser,
    admin: RegisteredUser,
    editor: RegisteredUser,
    viewer: RegisteredUser,
    outsider: RegisteredUser,
    guest: RegisteredUser;
  let wsId: string;
  let p2: any;
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
    await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P1" } });
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

  describe("POST /project", () => {
    it("creates a project with the specification's Project record", async () => {
      const res = await ok("POST", "/project", {
        token: owner.token,
        body: { workspaceId: wsId, name: "  Contracts " },
      });
      expectProjectShape(res.data);
      expect(res.data).toEqual({
        _id: expect.any(String),
        userId: owner.id,
        workspaceId: wsId,
        name: "Contracts",
        originId: "",
        reference: "",
        description: "",
        createdAt: expect.any(Number),
        updatedAt: res.data.createdAt,
        icon: null,
        emoji: null,
        published: [],
        publishedBranding: null,
      });
      expect((await ok("GET", `/project/${res.data._id}`, { token: viewer.token })).data).toEqual(res.data);
    });

    it("stores description, reference, icon and emoji", async () => {
      const body = {
        workspaceId: wsId,
        name: "Decorated",
        description: "d",
        reference: "REF-1",
        icon: { name: "folder", color: "#ff0000" },
        emoji: { unified: "1f600", emojiStyle: "apple" },
      };
      const res = await ok("POST", "/project", { token: editor.token, body });
      expect(res.data).toMatchObject({ ...body, userId: editor.id });
      expect((await ok("GET", `/project/${res.data._id}`, { token: owner.token })).data).toEqual(res.data);
    });

    it("an admin and an editor may create; a viewer gets 403; an outsider 404", async () => {
      await ok("POST", "/project", { token: admin.token, body: { workspaceId: wsId, name: "By admin" } });
      expectError(
        await call("POST", "/project", { token: viewer.token, body: { workspaceId: wsId, name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", "/project", { token: outsider.token, body: { workspaceId: wsId, name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/project", { token: guest.token, body: { workspaceId: wsId, name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/project", { token: owner.token, body: { workspaceId: "no-such-ws", name: "x" } }),
        404,
        "NotFoundError",
      );
      const names = (await ok("GET", `/project/all/${wsId}`, { token: owner.token })).data.map((p: any) => p.name);
      expect(names).not.toContain("x");
    });

    it("validates its body", async () => {
      expectError(
        await call("POST", "/project", { token: owner.token, body: { workspaceId: wsId } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", "/project", {
          token: owner.token,
          body: { workspaceId: wsId, name: "x", icon: { name: "a" } },
        }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", "/project", { token: owner.token, body: { workspaceId: "bad id", name: "x" } }),
        400,
        "ValidationError",
      );
      const extra = await call("POST", "/project", {
        token: owner.token,
        body: { workspaceId: wsId, name: "x", publish: [] },
      });
      expectError(extra, 400, "ValidationError");
      expect(extra.body.details.map((d: any) => d.path)).toEqual(["publish"]);
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

  it("POST /project stays within three round trips", async () => {
    const res = await call("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Another" },
    });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBeLessThanOrEqual(3);
    expectError(
      await call("POST", "/project", { token: t.viewer.token, body: { workspaceId: t.workspaceId, name: "No" } }),
      403,
      "ForbiddenError",
    );
  });
});
