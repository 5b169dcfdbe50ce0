/** listProjects: GET /project/all/{workspaceId} (src/routes/projects/listByWorkspace.ts) — its happy path, errors and request-path checks. */
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
  let p1: any, p2: any, p3: any;
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
    p3 = (await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "P3" } })).data;
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

  describe("E12 GET /project/all/{workspaceId}", () => {
    it("a workspace collaborator sees every project, in creation order", async () => {
      for (const u of [owner, viewer]) {
        const res = await ok("GET", `/project/all/${wsId}`, { token: u.token });
        const ids = res.data.map((p: any) => p._id);
        expect(ids.slice(0, 3)).toEqual([p1._id, p2._id, p3._id]);
        for (const p of res.data) {
          expectProjectShape(p);
          expect(p.workspaceId).toBe(wsId);
        }
        expect(res.data[0]).toEqual(p1);
      }
    });

    it("a user with only a document grant sees only that document's project", async () => {
      const res = await ok("GET", `/project/all/${wsId}`, { token: guest.token });
      expect(res.data).toEqual([p2]);
    });

    it("a user who can see nothing of the workspace gets 404, like an unknown workspace", async () => {
      expectError(await call("GET", `/project/all/${wsId}`, { token: outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/project/all/no-such-ws", { token: owner.token }), 404, "NotFoundError");
      expectError(await call("GET", "/project/all/!!!", { token: owner.token }), 400, "ValidationError");
    });

    it("an empty workspace the caller collaborates on is []", async () => {
      const ws = await ok("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: owner.organizationId, name: "Empty" },
      });
      expect(await ok("GET", `/project/all/${ws.data._id}`, { token: owner.token })).toEqual({ data: [] });
    });

    it("publishedBranding has the specification's Project shape: company and callToAction, every leaf a string", async () => {
      const project = (
        await ok("POST", "/project", { token: owner.token, body: { workspaceId: wsId, name: "Branded" } })
      ).data;
      await ok("PUT", `/project/${project._id}/branding`, {
        token: owner.token,
        body: {
          company: { name: "Acme", logo: "https://acme.test/logo.png", url: "https://acme.test" },
          callToAction: {
            enabled: true,
            icon: { name: "star", color: "#fff" },
            text: "Join",
            url: "https://acme.test/join",
          },
          socials: [{ platform: "x", handle: "acme" }],
        },
      });
      // E13 keeps its own shape (enabled, socials); the Project record's member has only string leaves.
      const want = {
        company: { name: "Acme", logo: "https://acme.test/logo.png", url: "https://acme.test" },
        callToAction: { icon: { name: "star", color: "#fff" }, text: "Join", url: "https://acme.test/join" },
      };
      const listed = (await ok("GET", `/project/all/${wsId}`, { token: viewer.token })).data.find(
        (p: any) => p._id === project._id,
      );
      expect(listed.publishedBranding).toEqual(want);
      expect((await ok("GET", `/project/${project._id}`, { token: viewer.token })).data.publishedBranding).toEqual(
        want,
      );
      const leaves = (v: unknown): unknown[] =>
        v !== null && typeof v === "object" ? Object.values(v).flatMap(leaves) : [v];
      for (const leaf of leaves(listed.publishedBranding)) expect(typeof leaf).toBe("string");
    });

    it("a grant on a soft-deleted document no longer reveals the project", async () => {
      const lonely = await registerUser("Lonely guest");
      const doc = await ok("POST", "/document", {
        token: owner.token,
        body: { projectId: p3._id, name: "Temp", type: "DOCUMENT" },
      });
      await ok("POST", "/document/invite-user", {
        token: owner.token,
        body: { email: lonely.email, documentId: doc.data._id },
      });
      expect((await ok("GET", `/project/all/${wsId}`, { token: lonely.token })).data.map((p: any) => p._id)).toEqual([
        p3._id,
      ]);
      await ok("DELETE", `/document/${doc.data._id}`, { token: owner.token });
      expectError(await call("GET", `/project/all/${wsId}`, { token: lonely.token }), 404, "NotFoundError");
      expectError(await call("GET", `/project/${p3._id}`, { token: lonely.token }), 404, "NotFoundError");
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

  it("E12 costs one round trip for a collaborator and for a document-grant guest; a stranger's 404 too", async () => {
    const owner = await call("GET", `/project/all/${t.workspaceId}`, { token: t.owner.token });
    expect(owner.status).toBe(200);
    expect(trips(owner.headers)).toBe(1);
    const guest = await call("GET", `/project/all/${t.workspaceId}`, { token: t.outsider.token });
    expect(guest.status).toBe(200);
    expect(guest.body.data.map((p: { _id: string }) => p._id)).toEqual([t.projectId]);
    expect(trips(guest.headers)).toBe(1);
    // The editor's token with its last character changed (to one it is not: appending a fixed "x" left it valid 1 time in 62).
    const forged = t.editor.token.replace(/.$/, (ch: string) => (ch === "x" ? "y" : "x"));
    expect(forged).not.toBe(t.editor.token);
    const stranger = await call("GET", `/project/all/${t.workspaceId}`, { token: forged });
    expect(stranger.status).toBe(401);
    const other = await call("GET", `/project/all/${t.outsider.workspaceId}`, { token: t.owner.token });
    expectError(other, 404, "NotFoundError");
    expect(trips(other.headers)).toBe(1);
  });
});
