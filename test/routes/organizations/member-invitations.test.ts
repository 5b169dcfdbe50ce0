/**
 * Accounts cannot be probed by email (docs/api-guide.md, "Organizations and workspaces"): adding an organization
 * member or a workspace collaborator answers the same for a registered and an unregistered email (the latter is a
 * pending invitation applied at registration); notifications from one sender to one recipient are limited per hour;
 * pending invitations per organization are bounded.
 */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  uniqueEmail,
  type RegisteredUser,
  type Tenant,
} from "../../support/harness";
import { shardD1 } from "../../support/shards";

/** The answer with the email taken out: what must not differ between a registered and an unregistered email. */
function shape(res: { status: number; body: any }, email: string) {
  return { status: res.status, body: JSON.parse(JSON.stringify(res.body).split(email.toLowerCase()).join("<email>")) };
}

describe("members and collaborators by email answer the same whether the email is registered or not", () => {
  let owner: RegisteredUser;
  let known: RegisteredUser;

  beforeAll(async () => {
    [owner, known] = await Promise.all([registerUser("Inviter"), registerUser("Known")]);
  });

  it("POST /organization/{orgId}/member", async () => {
    const ghost = uniqueEmail("ghost");
    const registered = await call("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: known.email, role: "member" },
    });
    const unregistered = await call("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: ghost, role: "member" },
    });
    expect(registered.status).toBe(200);
    expect(shape(unregistered, ghost)).toEqual(shape(registered, known.email));
    expect(registered.body.data).toEqual({
      organizationId: owner.organizationId,
      email: known.email.toLowerCase(),
      role: "member",
    });
    // The one added is told who added them, and where.
    const notes = (await ok("GET", "/notification/all", { token: known.token })).data as any[];
    expect(notes.find((n) => n.kind === "organization.member_added")?.data).toMatchObject({
      organizationId: owner.organizationId,
      invitedBy: owner.id,
    });
  });

  it("POST /workspace/{id}/collaborator", async () => {
    const ghost = uniqueEmail("ghost");
    const other = await registerUser("Known 2");
    const registered = await call("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: other.email, role: "viewer" },
    });
    const unregistered = await call("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: ghost, role: "viewer" },
    });
    expect(registered.status).toBe(200);
    expect(shape(unregistered, ghost)).toEqual(shape(registered, other.email));
    // The registered user reads the workspace at once.
    expect((await call("GET", `/workspace/${owner.workspaceId}`, { token: other.token })).status).toBe(200);
  });

  it("an unregistered email's invitation is applied when it registers", async () => {
    const orgEmail = uniqueEmail("later-org");
    const wsEmail = uniqueEmail("later-ws");
    await ok("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: orgEmail, role: "admin" },
    });
    await ok("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: wsEmail, role: "editor" },
    });
    const orgUser = await registerUser("Later org", orgEmail);
    const wsUser = await registerUser("Later ws", wsEmail);
    const orgs = (await ok("GET", "/organization/all", { token: orgUser.token })).data as any[];
    expect(orgs.find((o) => o._id === owner.organizationId)?.role).toBe("admin");
    const ws = (await ok("GET", `/workspace/${owner.workspaceId}`, { token: wsUser.token })).data;
    expect(ws.collaborators).toContainEqual({ userId: wsUser.id, role: "editor" });
    expect(
      ((await ok("GET", `/workspace/all/${owner.organizationId}`, { token: wsUser.token })).data as any[]).map(
        (w) => w._id,
      ),
    ).toContain(owner.workspaceId);
  });

  it("a registration that applies a pending membership and a pending document share stays within its 4 round trips", async () => {
    const email = uniqueEmail("later-both");
    await ok("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email, role: "member" },
    });
    const project = (
      await ok("POST", "/project", {
        token: owner.token,
        body: { workspaceId: owner.workspaceId, name: "Shared later" },
      })
    ).data;
    const doc = (
      await ok("POST", "/document", {
        token: owner.token,
        body: { projectId: project._id, name: "For later", type: "DOCUMENT" },
      })
    ).data;
    await ok("POST", "/document/invite-user", {
      token: owner.token,
      body: { email, documentId: doc._id, role: "viewer" },
    });
    const res = await call("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name: "Later both" } });
    expect(res.status).toBe(200);
    // The directory; the shards (and the index of memberships); the two invitations applied at once; the index.
    expect(Number(res.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(4);
    const token = res.body.data.token.token;
    expect(((await ok("GET", "/organization/all", { token })).data as any[]).map((o) => o._id)).toContain(
      owner.organizationId,
    );
    expect((await call("GET", `/document/${doc._id}`, { token })).status).toBe(200);
  });
});

describe("notifications from one sender to one recipient are limited (20 per hour, the rest folded)", () => {
  let t: Tenant;
  let victim: RegisteredUser;

  beforeAll(async () => {
    t = await seedTenant();
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

describe("pending invitations per organization are bounded", () => {
  it("past the bound, further additions are refused alike for registered and unregistered emails", async () => {
    const owner = await registerUser("Bulk inviter");
    const known = await registerUser("Known late");
    const MAX = 200;
    for (let start = 0; start < MAX; start += 20) {
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ok("POST", `/organization/${owner.organizationId}/member`, {
            token: owner.token,
            body: { email: uniqueEmail(`p${start + i}`) },
          }),
        ),
      );
    }
    const pending = await shardD1(owner.organizationId)
      .prepare("SELECT COUNT(*) AS n FROM member_invitations WHERE organization_id = ? AND accepted_at IS NULL")
      .bind(owner.organizationId)
      .first<{ n: number }>();
    expect(pending!.n).toBe(MAX);
    const ghost = uniqueEmail("one-too-many");
    const a = await call("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: ghost },
    });
    const b = await call("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: known.email },
    });
    expectError(a, 409, "ConflictError");
    expect(shape(a, ghost)).toEqual(shape(b, known.email));
    const c = await call("POST", `/workspace/${owner.workspaceId}/collaborator`, {
      token: owner.token,
      body: { email: uniqueEmail("ws"), role: "viewer" },
    });
    expectError(c, 409, "ConflictError");
    // E7 counts too.
    const project = (
      await ok("POST", "/project", { token: owner.token, body: { workspaceId: owner.workspaceId, name: "P" } })
    ).data._id;
    const doc = (
      await ok("POST", "/document", { token: owner.token, body: { projectId: project, name: "D", type: "DOCUMENT" } })
    ).data._id;
    expectError(
      await call("POST", "/document/invite-user", {
        token: owner.token,
        body: { email: uniqueEmail("e7"), documentId: doc },
      }),
      409,
      "ConflictError",
    );
  }, 120_000);
});
