/** createOrganization: POST /organization (src/routes/organizations/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { expectMsTimestamp } from "../../support/shapes";

describe("organizations", () => {
  let owner: RegisteredUser, admin: RegisteredUser, member: RegisteredUser;
  let orgId: string;
  beforeAll(async () => {
    [owner, admin, member] = await Promise.all([
      registerUser("Org Owner"),
      registerUser("Org Admin"),
      registerUser("Org Member"),
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
});
