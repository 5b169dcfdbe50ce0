/** createDocument: POST /document (src/routes/documents/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  ok,
  registerUser,
  seedTenant,
  type RegisteredUser,
  type Tenant,
  expectError,
} from "../../support/harness";
import { expectDocumentShape } from "../../support/shapes";
import { documentsFixture, documentTreeFixture } from "../../support/documents";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/**
 * Document-level grants (docs/api-guide.md › Concepts): a collaborator of a folder reads (or edits) everything below it and
 * nothing beside it; E10 and E20 agree with each other everywhere.
 */
describe("document-level access", () => {
  let reader: RegisteredUser;
  // Project tree:  F/ { a, S/ { b } }   G/ { c }   root
  let S: string;

  const mk = async (body: Record<string, unknown>) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } })).data
      ._id as string;
  const e10 = (id: string, u: RegisteredUser) => call("GET", `/document/${id}`, { token: u.token });
  const e20 = async (id: string, u: RegisteredUser) =>
    (await ok("GET", `/access/document/${id}`, { token: u.token })).data;

  beforeAll(async () => {
    ({ t, reader, S } = await documentTreeFixture());
  });

  it("a document created later below the folder is covered too", async () => {
    const late = await mk({ parentId: S, name: "late", type: "DOCUMENT" });
    expect((await e10(late, reader)).status).toBe(200);
    expect(await e20(late, reader)).toBe(true);
  });
});

type Doc = { _id: string; parentId: string | null; order: number; [k: string]: any };

describe("documents", () => {
  let otherFolderId: string;
  let outsiderFolderId: string;

  const create = async (body: Record<string, unknown>, token = t.owner.token): Promise<Doc> =>
    (await ok("POST", "/document", { token, body: { projectId: t.projectId, ...body } })).data;
  const e10 = (id: string, token = t.owner.token) => call("GET", `/document/${id}`, { token });

  beforeAll(async () => {
    ({ t, otherFolderId, outsiderFolderId } = await documentsFixture());
  });

  describe("POST /document", () => {
    it("creates a root folder with every member of the Document record", async () => {
      const res = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Root folder", type: "FOLDER" },
      });
      const d = res.data;
      expectDocumentShape(d);
      expect(d).toEqual({
        _id: expect.any(String),
        parentId: null,
        projectId: t.projectId,
        userId: t.owner.id,
        workspaceId: t.workspaceId,
        name: "Root folder",
        type: "FOLDER",
        createdAt: expect.any(Number),
        updatedAt: d.createdAt,
        description: "",
        reference: "",
        order: expect.any(Number),
        isPublished: false,
        publishedSettings: null,
        external: null,
        icon: null,
        emoji: null,
        collaborators: [{ userId: t.owner.id, role: "owner" }],
        isDeleted: false,
        commentCount: 0,
        openCommentCount: 0,
      });
      const read = await e10(d._id);
      expect(read.status).toBe(200);
      expect(read.body).toEqual({ data: d });
    });

    it("creates a document inside a folder with all optional members", async () => {
      const body = {
        parentId: t.folderId,
        name: "Full",
        type: "DOCUMENT",
        description: "About",
        reference: "REF-9",
        order: 42,
        icon: { name: "doc", color: "blue" },
        emoji: { unified: "1f4dd", emojiStyle: "native" },
      };
      const d = await create(body, t.editor.token);
      expectDocumentShape(d);
      expect(d).toMatchObject({
        ...body,
        userId: t.editor.id,
        collaborators: [{ userId: t.editor.id, role: "owner" }],
      });
      expect((await e10(d._id, t.viewer.token)).body.data).toEqual(d);
    });

    it("puts a new document after its siblings when no order is given", async () => {
      const folder = await create({ name: "Ordered", type: "FOLDER" });
      const a = await create({ parentId: folder._id, name: "a", type: "DOCUMENT" });
      const b = await create({ parentId: folder._id, name: "b", type: "DOCUMENT" });
      const c = await create({ parentId: folder._id, name: "c", type: "DOCUMENT", order: 10 });
      const d = await create({ parentId: folder._id, name: "d", type: "DOCUMENT" });
      expect([a.order, b.order, c.order, d.order]).toEqual([0, 1, 10, 11]);
    });

    it("a parent must be a FOLDER of the same project (400)", async () => {
      const notFolder = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: t.docId, name: "x", type: "DOCUMENT" },
      });
      expectError(notFolder, 400, "ValidationError");
      expect(notFolder.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
      const otherProject = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, parentId: otherFolderId, name: "x", type: "DOCUMENT" },
      });
      expectError(otherProject, 400, "ValidationError");
      expect(otherProject.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
    });

    it("a missing, deleted or unreadable parent is 404", async () => {
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: "no-such-folder", name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: outsiderFolderId, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      const doomed = await create({ name: "Doomed", type: "FOLDER" });
      await ok("DELETE", `/document/${doomed._id}`, { token: t.owner.token });
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: doomed._id, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
    });

    it("a viewer gets 403 at the root and in a folder; an outsider 404; an unknown project 404", async () => {
      expectError(
        await call("POST", "/document", {
          token: t.viewer.token,
          body: { projectId: t.projectId, name: "x", type: "DOCUMENT" },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.viewer.token,
          body: { projectId: t.projectId, parentId: t.folderId, name: "x", type: "DOCUMENT" },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.outsider.token,
          body: { projectId: t.projectId, name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/document", {
          token: t.owner.token,
          body: { projectId: "no-such-project", name: "x", type: "DOCUMENT" },
        }),
        404,
        "NotFoundError",
      );
    });

    it("validates its body", async () => {
      const cases: Record<string, unknown>[] = [
        { name: "x", type: "EXTERNAL" },
        { name: "x", type: "folder" },
        { name: "x" },
        { type: "DOCUMENT" },
        { name: "x", type: "DOCUMENT", order: -1 },
        { name: "x", type: "DOCUMENT", order: 1.5 },
        { name: "x", type: "DOCUMENT", parentId: "bad id" },
      ];
      for (const body of cases) {
        expectError(
          await call("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, ...body } }),
          400,
          "ValidationError",
        );
      }
      const extra = await call("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "x", type: "DOCUMENT", isPublishd: true },
      });
      expectError(extra, 400, "ValidationError");
      expect(extra.body.details.map((d: any) => d.path)).toEqual(["isPublishd"]);
    });
  });

  it("folders nest at most 64 deep, on create and on move (400)", async () => {
    const project = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Deep" } })
    ).data._id;
    let parentId: string | null = null;
    for (let level = 1; level <= 64; level++) {
      const folder: any = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: project, parentId, name: `L${level}`, type: "FOLDER" },
      });
      parentId = folder.data._id;
    }
    const tooDeep = await call("POST", "/document", {
      token: t.owner.token,
      body: { projectId: project, parentId, name: "L65", type: "DOCUMENT" },
    });
    expectError(tooDeep, 400, "ValidationError");
    expect(tooDeep.body.details.map((d: any) => d.path)).toEqual(["parentId"]);
    // A folder with a child moved under level 63 would reach 65.
    const pair = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: project, name: "pair", type: "FOLDER" },
      })
    ).data._id;
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: project, parentId: pair, name: "child", type: "DOCUMENT" },
    });
    const list = (await ok("GET", `/document/all/${project}`, { token: t.owner.token })).data as Doc[];
    const level63 = list.find((d) => d.name === "L63")!._id;
    const level62 = list.find((d) => d.name === "L62")!._id;
    expectError(
      await call("PATCH", `/document/${pair}`, { token: t.owner.token, body: { parentId: level63 } }),
      400,
      "ValidationError",
    );
    await ok("PATCH", `/document/${pair}`, { token: t.owner.token, body: { parentId: level62 } });
  });
});

/**
 * Document routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): E10/E20/the tree list in one D1 round trip, writes in at most 3,
 * E10's ETag answered with 304, and If-Match on PATCH/DELETE with 412 leaving the document unchanged.
 */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("documents on the request path", () => {
  beforeAll(async () => {
    // A guest who reaches the project through one document grant only.
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.doc2Id, role: "viewer" },
    });
    // Spend each token's lastUsedAt touch outside the measured calls.
    await Promise.all([t.owner, t.viewer, t.outsider].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("writes stay within three round trips", async () => {
    const created = await call("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "Trips", type: "FOLDER" },
    });
    expect(created.status).toBe(200);
    expect(trips(created.headers)).toBeLessThanOrEqual(3);
    const id = created.body.data._id;
    const moved = await call("PATCH", `/document/${id}`, {
      token: t.owner.token,
      body: { parentId: null, name: "Moved" },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ parentId: null, name: "Moved" });
    expect(trips(moved.headers)).toBeLessThanOrEqual(3);
    for (const [method, path] of [
      ["POST", `/document/${id}/publish`],
      ["DELETE", `/document/${id}/publish`],
      ["DELETE", `/document/${id}`],
      ["POST", `/document/${id}/restore`],
    ] as const) {
      const res = await call(method, path, {
        token: t.owner.token,
        body: method === "POST" && path.endsWith("publish") ? {} : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(trips(res.headers), `${method} ${path}`).toBeLessThanOrEqual(3);
    }
    const invite = await call("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.viewer.email, documentId: id, role: "editor" },
    });
    expect(invite.status).toBe(200);
    expect(trips(invite.headers)).toBeLessThanOrEqual(3);
  });
});

/**
 * Accounts cannot be probed by email (docs/api-guide.md, "Organizations and workspaces"): adding an organization
 * member or a workspace collaborator answers the same for a registered and an unregistered email (the latter is a
 * pending invitation applied at registration); notifications from one sender to one recipient are limited per hour;
 * pending invitations per organization are bounded.
 */
describe("notifications from one sender to one recipient are limited (20 per hour, the rest folded)", () => {
  let victim: RegisteredUser;

  beforeAll(async () => {
    victim = await registerUser("Victim");
  });

  it("50 E7 invitations leave at most 20 notifications from that sender", async () => {
    for (let i = 0; i < 50; i++) {
      const doc = (
        await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: `Spam ${i}`, type: "DOCUMENT" },
        })
      ).data._id;
      const res = await ok("POST", "/document/invite-user", {
        token: t.owner.token,
        body: { email: victim.email, documentId: doc },
      });
      // E7's documented answer is kept: the user is granted access every time.
      expect(res.data).toEqual({ invitationsSent: 1, documentsInvited: 1, usersInvited: 1 });
    }
    const notes = (await ok("GET", "/notification/all", { token: victim.token })).data as any[];
    const fromOwner = notes.filter((n) => n.data?.invitedBy === t.owner.id);
    expect(fromOwner.length).toBe(20);
    // The later ones are folded into the newest, not lost.
    expect(fromOwner.reduce((sum, n) => sum + 1 + (n.data?.folded ?? 0), 0)).toBe(50);
  });
});
