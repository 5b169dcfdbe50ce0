import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  type RegisteredUser,
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

  describe("GET /project/{id}", () => {
    it("workspace collaborators read every project", async () => {
      for (const u of [owner, admin, editor, viewer]) {
        const res = await ok("GET", `/project/${p1._id}`, { token: u.token });
        expect(res.data).toEqual(p1);
      }
    });

    it("a document grant makes only its project readable", async () => {
      expect((await ok("GET", `/project/${p2._id}`, { token: guest.token })).data).toEqual(p2);
      expectError(await call("GET", `/project/${p1._id}`, { token: guest.token }), 404, "NotFoundError");
    });

    it("no access and no such project both answer 404", async () => {
      expectError(await call("GET", `/project/${p1._id}`, { token: outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/project/does-not-exist", { token: owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/project/${"p".repeat(65)}`, { token: owner.token }), 400, "ValidationError");
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
