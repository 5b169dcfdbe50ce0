import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, uniqueEmail, type RegisteredUser } from "../../support/harness";
import { expectMsTimestamp } from "../../support/shapes";

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

  it("POST /organization makes the caller its owner; GET /organization/all lists it with the role", async () => {
    const created = await ok("POST", "/organization", { token: owner.token, body: { name: "  Second org " } });
    expect(Object.keys(created.data).sort()).toEqual(["_id", "createdAt", "name", "ownerId", "role", "updatedAt"]);
    expect(created.data).toMatchObject({ name: "Second org", ownerId: owner.id, role: "owner" });
    expectMsTimestamp(created.data.createdAt);
    const list = await ok("GET", "/organization/all", { token: owner.token });
    // Personal organization first (creation order), then Acme, then this one.
    expect(list.data.map((o: any) => o._id)).toEqual([owner.organizationId, orgId, created.data._id]);
    expect(list.data.map((o: any) => o.role)).toEqual(["owner", "owner", "owner"]);
    expect(list.data[2]).toEqual(created.data);
  });

  it("POST /organization validates its body", async () => {
    expectError(
      await call("POST", "/organization", { token: owner.token, body: { name: "" } }),
      400,
      "ValidationError",
    );
    expectError(await call("POST", "/organization", { token: owner.token, body: {} }), 400, "ValidationError");
    expectError(
      await call("POST", "/organization", { token: owner.token, body: { name: "x", owner: "y" } }),
      400,
      "ValidationError",
    );
  });

  it("members see the organization with their own role; outsiders do not", async () => {
    const forAdmin = await ok("GET", "/organization/all", { token: admin.token });
    expect(forAdmin.data.find((o: any) => o._id === orgId)).toMatchObject({
      name: "Acme",
      ownerId: owner.id,
      role: "admin",
    });
    const forMember = await ok("GET", "/organization/all", { token: member.token });
    expect(forMember.data.find((o: any) => o._id === orgId)?.role).toBe("member");
    const forOutsider = await ok("GET", "/organization/all", { token: outsider.token });
    expect(forOutsider.data.map((o: any) => o._id)).toEqual([outsider.organizationId]);
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
