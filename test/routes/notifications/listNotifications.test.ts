/** listNotifications: GET /notification/all (src/routes/notifications/list.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, registerUser, seedTenant, type RegisteredUser } from "../../support/harness";

/** The notifications E7 produces (docs/api-guide.md › Organizations and workspaces). */
describe("notifications", () => {
  let u: RegisteredUser;
  beforeAll(async () => {
    u = await registerUser("Quiet");
  });

  it("a new user has none; the list is newest first", async () => {
    expect(await ok("GET", "/notification/all", { token: u.token })).toEqual({ data: [] });
    const t = await seedTenant();
    const d1 = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "first", type: "DOCUMENT" },
      })
    ).data._id;
    const d2 = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "second", type: "DOCUMENT" },
      })
    ).data._id;
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: u.email, documentId: d1 } });
    await ok("POST", "/document/invite-user", { token: t.owner.token, body: { email: u.email, documentId: d2 } });
    const list = await ok("GET", "/notification/all", { token: u.token });
    expect(list.data.map((n: any) => n.data.documentId)).toEqual([d2, d1]);
  });
});
