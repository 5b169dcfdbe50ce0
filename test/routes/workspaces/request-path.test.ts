/** Workspace routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E17 in one round trip, ETag/304, If-Match/412. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("workspaces on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E17 costs one round trip, for a member and for a stranger (empty list)", async () => {
    const mine = await call("GET", `/workspace/all/${t.organizationId}`, { token: t.viewer.token });
    expect(mine.status).toBe(200);
    expect(trips(mine.headers)).toBe(1);
    expect(mine.body.data.map((w: { _id: string }) => w._id)).toEqual([t.workspaceId]);
    expect(mine.body.data[0].collaborators).toHaveLength(3);
    const stranger = await call("GET", `/workspace/all/${t.organizationId}`, { token: t.outsider.token });
    expect(stranger.body).toEqual({ data: [] });
    expect(trips(stranger.headers)).toBe(1);
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

  it("PATCH with the current ETag succeeds; a stale one is 412 and changes nothing", async () => {
    const etag = (await call("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).headers.get("etag")!;
    const updated = await call("PATCH", `/workspace/${t.workspaceId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Renamed" },
    });
    expect(updated.status).toBe(200);
    expect(trips(updated.headers)).toBeLessThanOrEqual(3);
    expect(updated.headers.get("etag")).toBe(
      (await call("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).headers.get("etag"),
    );
    const stale = await call("PATCH", `/workspace/${t.workspaceId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Lost update" },
    });
    expectError(stale, 412, "PreconditionFailedError");
    expect((await ok("GET", `/workspace/${t.workspaceId}`, { token: t.owner.token })).data.name).toBe("Renamed");
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
