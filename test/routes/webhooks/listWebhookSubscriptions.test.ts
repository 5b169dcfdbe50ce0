/** GET /webhook/all (docs/api-guide.md › Webhook subscriptions). */
import { beforeAll, describe, expect, it } from "vitest";
import { ok, seedTenant, type Tenant } from "../../support/harness";
import { hookKey, subscribe } from "../../support/webhooks";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("GET /webhook/all", () => {
  it("the subscriptions of the caller's workspaces, newest first and paged; none of them for an outsider", async () => {
    const a = await subscribe(t, hookKey("list-a"));
    const b = await subscribe(t, hookKey("list-b"));
    const all = await ok("GET", "/webhook/all", { token: t.owner.token });
    expect(all.data.map((s: any) => s._id)).toEqual([b._id, a._id]);
    expect(all.nextCursor).toBeNull();
    const first = await ok("GET", "/webhook/all", { token: t.owner.token, query: { limit: "1" } });
    expect(first.data.map((s: any) => s._id)).toEqual([b._id]);
    const second = await ok("GET", "/webhook/all", {
      token: t.owner.token,
      query: { limit: "1", cursor: first.nextCursor },
    });
    expect(second.data.map((s: any) => s._id)).toEqual([a._id]);
    const viewer = await ok("GET", "/webhook/all", { token: t.viewer.token });
    expect(viewer.data.map((s: any) => s._id)).toEqual([b._id, a._id]);
    expect(viewer.data[0].url).not.toContain("/hook/");
    const outsider = await ok("GET", "/webhook/all", { token: t.outsider.token });
    expect(outsider.data.filter((s: any) => s.projectId === t.projectId)).toEqual([]);
  });

  it("a token limited to one project lists that project's subscriptions only", async () => {
    const other = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "Other" } })
    ).data;
    const inside = await subscribe(t, hookKey("list-inside"));
    const outside = await subscribe(t, hookKey("list-outside"), { scope: { projectId: other._id } });
    const limited = (
      await ok("POST", "/token", {
        token: t.owner.token,
        body: { name: "one project", scopes: ["changes:read"], resources: [t.projectId] },
      })
    ).data.token;
    const ids = (await ok("GET", "/webhook/all", { token: limited, query: { limit: "100" } })).data.map(
      (s: any) => s._id,
    );
    expect(ids).toContain(inside._id);
    expect(ids).not.toContain(outside._id);
    const all = (await ok("GET", "/webhook/all", { token: t.owner.token, query: { limit: "100" } })).data;
    expect(all.map((s: any) => s._id)).toContain(outside._id);
  });
});
