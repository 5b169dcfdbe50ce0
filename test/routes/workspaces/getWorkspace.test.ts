/** getWorkspace: GET /workspace/{id} (src/routes/workspaces/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  seedTenant,
  type Tenant,
  addWorkspaceCollaborator,
  ok,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";
import { expectWorkspaceShape } from "../../support/shapes";

/** Workspace routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E17 in one round trip, ETag/304, If-Match/412. */
const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("workspaces on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("GET /workspace/{id} costs one round trip and answers 304 on If-None-Match", async () => {
    const res = await call("GET", `/workspace/${t.workspaceId}`, { token: t.viewer.token });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBe(1);
    const etag = res.headers.get("etag")!;
    const again = await call("GET", `/workspace/${t.workspaceId}`, {
      token: t.viewer.token,
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    expectError(await call("GET", `/workspace/${t.workspaceId}`, { token: t.outsider.token }), 404, "NotFoundError");
  });

  it("a collaborator change moves the ETag, so an If-Match taken before it is 412", async () => {
    const etag = (await call("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).headers.get("etag")!;
    const added = await call("POST", `/workspace/${t.workspaceId}/collaborator`, {
      token: t.owner.token,
      body: { email: t.outsider.email, role: "viewer" },
    });
    expect(added.status).toBe(200);
    expect(trips(added.headers)).toBeLessThanOrEqual(3);
    expectError(
      await call("PATCH", `/workspace/${t.workspaceId}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { description: "x" },
      }),
      412,
      "PreconditionFailedError",
    );
    const removed = await call("DELETE", `/workspace/${t.workspaceId}/collaborator/${t.outsider.id}`, {
      token: t.outsider.token,
    });
    expect(removed.status).toBe(200);
    expect(trips(removed.headers)).toBeLessThanOrEqual(3);
    expectError(await call("GET", `/workspace/${t.workspaceId}`, { token: t.outsider.token }), 404, "NotFoundError");
  });
});

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

  describe("GET /workspace/{id}", () => {
    it("any collaborator reads it; others get 404", async () => {
      for (const u of [owner, admin, editor, viewer]) {
        const res = await ok("GET", `/workspace/${wsId}`, { token: u.token });
        expectWorkspaceShape(res.data);
        expect(res.data._id).toBe(wsId);
      }
      expectError(await call("GET", `/workspace/${wsId}`, { token: outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", `/workspace/${wsId}`, { token: orgMember.token }), 404, "NotFoundError");
      expectError(await call("GET", "/workspace/no-such-ws", { token: owner.token }), 404, "NotFoundError");
    });
  });
});
