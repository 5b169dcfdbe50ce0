/** listOrganizations: GET /organization/all (src/routes/organizations/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, type RegisteredUser } from "../../support/harness";

describe("organizations", () => {
  let owner: RegisteredUser, admin: RegisteredUser, member: RegisteredUser, outsider: RegisteredUser;
  let orgId: string;
  beforeAll(async () => {
    [owner, admin, member, outsider] = await Promise.all([
      registerUser("Org Owner"),
      registerUser("Org Admin"),
      registerUser("Org Member"),
      registerUser("Org Outsider"),
    ]);
    const org = await ok("POST", "/organization", { token: owner.token, body: { name: "Acme" } });
    orgId = org.data._id;
    await ok("POST", `/organization/${orgId}/member`, {
      token: owner.token,
      body: { email: admin.email, role: "admin" },
    });
    await ok("POST", `/organization/${orgId}/member`, { token: owner.token, body: { email: member.email } });
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

  it("a token limited to resources lists only the organizations it was given", async () => {
    const second = (await ok("POST", "/organization", { token: owner.token, body: { name: "Second" } })).data._id;
    const ws = (await ok("POST", "/workspace", { token: owner.token, body: { organizationId: orgId, name: "W" } }))
      .data;
    const issue = async (resources: string[] | undefined) =>
      (
        await ok("POST", "/token", {
          token: owner.token,
          body: { name: "scoped", scopes: ["members:read"], resources },
        })
      ).data.token as string;
    const listed = async (token: string) =>
      ((await ok("GET", "/organization/all", { token })).data as { _id: string }[]).map((o) => o._id).sort();
    expect(await listed(await issue([orgId]))).toEqual([orgId]);
    // A workspace of the organization is not the organization: reading it is 404, so it is not listed either.
    expect(await listed(await issue([ws._id]))).toEqual([]);
    expect(await listed(await issue(undefined))).toEqual([owner.organizationId, orgId, second].sort());
  });
});
