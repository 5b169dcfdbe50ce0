/** getProject: GET /project/{id} (src/routes/projects/get.ts) — its happy path, errors and request-path checks. */
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

  it("GET /project/{id} costs one round trip and answers 304 on If-None-Match", async () => {
    const res = await call("GET", `/project/${t.projectId}`, { token: t.outsider.token });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBe(1);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await call("GET", `/project/${t.projectId}`, {
      token: t.outsider.token,
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });
});
