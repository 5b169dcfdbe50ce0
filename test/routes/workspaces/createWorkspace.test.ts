/** createWorkspace: POST /workspace (src/routes/workspaces/create.ts) — its happy path, errors and request-path checks. */
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

  it("POST /workspace stays within three round trips", async () => {
    const res = await call("POST", "/workspace", {
      token: t.viewer.token,
      body: { organizationId: t.viewer.organizationId, name: "Mine" },
    });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBeLessThanOrEqual(3);
    expectError(
      await call("POST", "/workspace", {
        token: t.viewer.token,
        body: { organizationId: t.editor.organizationId, name: "No" },
      }),
      404,
      "NotFoundError",
    );
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

  describe("POST /workspace", () => {
    it("creates a workspace owned by the caller", async () => {
      const res = await ok("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "Legal", description: "Contracts", isShared: true },
      });
      expectWorkspaceShape(res.data);
      expect(res.data).toMatchObject({
        name: "Legal",
        description: "Contracts",
        isShared: true,
        isDefault: false,
        organizationId: orgId,
        ownerId: owner.id,
        collaborators: [{ userId: owner.id, role: "owner" }],
      });
      expect(res.data.updatedAt).toBe(res.data.createdAt);
      const again = await ok("GET", `/workspace/${res.data._id}`, { token: owner.token });
      expect(again.data).toEqual(res.data);
    });

    it('defaults description to "" and isShared to false', async () => {
      const res = await ok("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "Plain" },
      });
      expect(res.data).toMatchObject({ description: "", isShared: false, isDefault: false });
    });

    it("any organization member may create one; a non-member gets 404", async () => {
      const res = await ok("POST", "/workspace", {
        token: orgMember.token,
        body: { organizationId: orgId, name: "Mine" },
      });
      expect(res.data.ownerId).toBe(orgMember.id);
      expectError(
        await call("POST", "/workspace", { token: outsider.token, body: { organizationId: orgId, name: "Intrusion" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { organizationId: "no-such-org", name: "x" } }),
        404,
        "NotFoundError",
      );
      // Nothing was created in the organization by the outsider.
      const list = await ok("GET", `/workspace/all/${orgId}`, { token: owner.token });
      expect(list.data.map((w: any) => w.name)).not.toContain("Intrusion");
    });

    it("validates its body", async () => {
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { name: "x" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", "/workspace", { token: owner.token, body: { organizationId: orgId, name: "" } }),
        400,
        "ValidationError",
      );
      const extra = await call("POST", "/workspace", {
        token: owner.token,
        body: { organizationId: orgId, name: "x", isDefautl: true },
      });
      expectError(extra, 400, "ValidationError");
      expect(extra.body.details.map((d: any) => d.path)).toEqual(["isDefautl"]);
    });
  });
});
