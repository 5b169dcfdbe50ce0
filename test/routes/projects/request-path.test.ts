/** Project routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): GET and E12 in one round trip, ETag/304, If-Match/412. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("projects on the request path", () => {
  let t: Tenant;
  beforeAll(async () => {
    t = await seedTenant();
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.docId, role: "viewer" },
    });
    await Promise.all([t.owner, t.viewer, t.outsider, t.editor].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E12 costs one round trip for a collaborator and for a document-grant guest; a stranger's 404 too", async () => {
    const owner = await call("GET", `/project/all/${t.workspaceId}`, { token: t.owner.token });
    expect(owner.status).toBe(200);
    expect(trips(owner.headers)).toBe(1);
    const guest = await call("GET", `/project/all/${t.workspaceId}`, { token: t.outsider.token });
    expect(guest.status).toBe(200);
    expect(guest.body.data.map((p: { _id: string }) => p._id)).toEqual([t.projectId]);
    expect(trips(guest.headers)).toBe(1);
    // The editor's token with its last character changed (to one it is not: appending a fixed "x" left it valid 1 time in 62).
    const forged = t.editor.token.replace(/.$/, (ch: string) => (ch === "x" ? "y" : "x"));
    expect(forged).not.toBe(t.editor.token);
    const stranger = await call("GET", `/project/all/${t.workspaceId}`, { token: forged });
    expect(stranger.status).toBe(401);
    const other = await call("GET", `/project/all/${t.outsider.workspaceId}`, { token: t.owner.token });
    expectError(other, 404, "NotFoundError");
    expect(trips(other.headers)).toBe(1);
  });

  it("GET /project/{id} costs one round trip and answers 304 on If-None-Match", async () => {
    const res = await call("GET", `/project/${t.projectId}`, { token: t.outsider.token });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBe(1);
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await call("GET", `/project/${t.projectId}`, {
      token: t.outsider.token,
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
  });

  it("PATCH with the current ETag succeeds; a stale one is 412 and changes nothing", async () => {
    const etag = (await call("GET", `/project/${t.projectId}`, { token: t.owner.token })).headers.get("etag")!;
    const updated = await call("PATCH", `/project/${t.projectId}`, {
      token: t.editor.token,
      headers: { "if-match": etag },
      body: { name: "Renamed" },
    });
    expect(updated.status).toBe(200);
    expect(trips(updated.headers)).toBeLessThanOrEqual(3);
    const fresh = await call("GET", `/project/${t.projectId}`, { token: t.owner.token });
    expect(updated.headers.get("etag")).toBe(fresh.headers.get("etag"));
    const stale = await call("PATCH", `/project/${t.projectId}`, {
      token: t.owner.token,
      headers: { "if-match": etag },
      body: { name: "Lost update" },
    });
    expectError(stale, 412, "PreconditionFailedError");
    expect((await ok("GET", `/project/${t.projectId}`, { token: t.owner.token })).data.name).toBe("Renamed");
    const star = await call("PATCH", `/project/${t.projectId}`, {
      token: t.owner.token,
      headers: { "if-match": "*" },
      body: { reference: "P-1" },
    });
    expect(star.status).toBe(200);
  });

  it("POST /project stays within three round trips", async () => {
    const res = await call("POST", "/project", {
      token: t.owner.token,
      body: { workspaceId: t.workspaceId, name: "Another" },
    });
    expect(res.status).toBe(200);
    expect(trips(res.headers)).toBeLessThanOrEqual(3);
    expectError(
      await call("POST", "/project", { token: t.viewer.token, body: { workspaceId: t.workspaceId, name: "No" } }),
      403,
      "ForbiddenError",
    );
  });
});
