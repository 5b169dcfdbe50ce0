/** addOrganizationMember: POST /organization/{orgId}/member (src/routes/organizations/addMember.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  expectError,
  ok,
  registerUser,
  uniqueEmail,
  type RegisteredUser,
} from "../../support/harness";
import { shardD1 } from "../../support/shards";

/**
 * Accounts cannot be probed by email (docs/api-guide.md, "Organizations and workspaces"): adding an organization
 * member or a workspace collaborator answers the same for a registered and an unregistered email (the latter is a
 * pending invitation applied at registration); notifications from one sender to one recipient are limited per hour;
 * pending invitations per organization are bounded.
 */
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

describe("organizations", () => {
  let owner: RegisteredUser,
    admin: RegisteredUser,
    member: RegisteredUser,
    outsider: RegisteredUser,
    newcomer: RegisteredUser;
  let orgId: string;
  beforeAll(async () => {
    [owner, admin, member, outsider, newcomer] = await Promise.all([
      registerUser("Org Owner"),
      registerUser("Org Admin"),
      registerUser("Org Member"),
      registerUser("Org Outsider"),
      registerUser("Newcomer"),
    ]);
    const org = await ok("POST", "/organization", { token: owner.token, body: { name: "Acme" } });
    orgId = org.data._id;
    await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: admin.email, role: "admin" },
    });
    await ok("POST", `/organization/${orgId}/member`, { token: owner.token, body: { email: member.email } });
  });

  it("an owner adds a member (role defaults to member) and can change the role", async () => {
    const added = await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: newcomer.email.toUpperCase() },
    });
    expect(added.data).toEqual({ organizationId: orgId, email: newcomer.email.toLowerCase(), role: "member" });
    const changed = await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: newcomer.email, role: "admin" },
    });
    expect(changed.data.role).toBe("admin");
    const list = await ok("GET", "/organization/all", { token: newcomer.token });
    expect(list.data.find((o: any) => o._id === orgId)?.role).toBe("admin");
  });

  it("an admin adds members but cannot make owners (403)", async () => {
    const added = await ok("POST", `/organization/${orgId}/member`, {
      token: admin.token,
      body: { email: newcomer.email, role: "member" },
    });
    expect(added.data).toMatchObject({ organizationId: orgId, role: "member" });
    expectError(
      await call("POST", `/organization/${orgId}/member`, {
        token: admin.token,
        body: { email: newcomer.email, role: "owner" },
      }),
      403,
      "ForbiddenError",
    );
  });

  it("an admin cannot demote an owner", async () => {
    const res = await call("POST", `/organization/${orgId}/member`, {
      token: admin.token,
      body: { email: owner.email, role: "member" },
    });
    expectError(res, 403, "ForbiddenError");
    // Nor a second owner the first one appointed.
    const second = await registerUser("Second owner");
    await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: second.email, role: "owner" },
    });
    expectError(
      await call("POST", `/organization/${orgId}/member`, {
        token: admin.token,
        body: { email: second.email, role: "admin" },
      }),
      403,
      "ForbiddenError",
    );
    // An owner may change another owner's role.
    const demoted = await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: second.email, role: "admin" },
    });
    expect(demoted.data.role).toBe("admin");
    const list = await ok("GET", "/organization/all", { token: owner.token });
    expect(list.data.find((o: any) => o._id === orgId)?.role).toBe("owner");
  });

  it("the organization's owner cannot be demoted, not even by themselves (409)", async () => {
    const res = await call("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: owner.email, role: "admin" },
    });
    expectError(res, 409, "ConflictError");
    const list = await ok("GET", "/organization/all", { token: owner.token });
    expect(list.data.find((o: any) => o._id === orgId)?.role).toBe("owner");
  });

  it("a plain member cannot add members (403); an outsider gets 404", async () => {
    const candidate = await registerUser("Candidate");
    expectError(
      await call("POST", `/organization/${orgId}/member`, { token: member.token, body: { email: candidate.email } }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("POST", `/organization/${orgId}/member`, { token: outsider.token, body: { email: candidate.email } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", `/organization/${orgId}/member`, {
        token: outsider.token,
        body: { email: outsider.email, role: "owner" },
      }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/organization/no-such-org/member", { token: owner.token, body: { email: candidate.email } }),
      404,
      "NotFoundError",
    );
    const list = await ok("GET", "/organization/all", { token: candidate.token });
    expect(list.data.map((o: any) => o._id)).not.toContain(orgId);
  });

  it("an unknown email is a pending invitation (200, as for a registered one); a bad email or role is 400", async () => {
    expect(
      (
        await call("POST", `/organization/${orgId}/member`, {
          token: owner.token,
          body: { email: uniqueEmail("ghost") },
        })
      ).status,
    ).toBe(200);
    const bad = await call("POST", `/organization/${orgId}/member`, { token: owner.token, body: { email: "nope" } });
    expectError(bad, 400, "ValidationError");
    expect(bad.body.details.map((d: any) => d.path)).toEqual(["email"]);
    expectError(
      await call("POST", `/organization/${orgId}/member`, {
        token: owner.token,
        body: { email: member.email, role: "editor" },
      }),
      400,
      "ValidationError",
    );
  });
});
