/**
 * Document routes on the request path (docs/api-guide.md › HTTP semantics: retries, caching, replicas): E10/E20/the tree list in one D1 round trip, writes in at most 3,
 * E10's ETag answered with 304, and If-Match on PATCH/DELETE with 412 leaving the document unchanged.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

const trips = (h: Headers) => Number(h.get("x-d1-round-trips"));

describe("documents on the request path", () => {
  let t: Tenant;
  let guestToken: string;
  beforeAll(async () => {
    t = await seedTenant();
    // A guest who reaches the project through one document grant only.
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.outsider.email, documentId: t.doc2Id, role: "viewer" },
    });
    guestToken = t.outsider.token;
    // Spend each token's lastUsedAt touch outside the measured calls.
    await Promise.all([t.owner, t.viewer, t.outsider].map((u) => call("GET", "/me", { token: u.token })));
  });

  it("E10 and E20 cost one round trip for a reader, a guest and a stranger alike", async () => {
    for (const token of [t.owner.token, guestToken, t.viewer.token]) {
      const e10 = await call("GET", `/document/${t.doc2Id}`, { token });
      expect(e10.status).toBe(200);
      expect(trips(e10.headers)).toBe(1);
      const e20 = await call("GET", `/access/document/${t.doc2Id}`, { token });
      expect(e20.body).toEqual({ data: true });
      expect(trips(e20.headers)).toBe(1);
    }
    const hidden = await call("GET", `/access/document/${t.docId}`, { token: guestToken });
    expect(hidden.body).toEqual({ data: false });
    expect(trips(hidden.headers)).toBe(1);
  });

  it("the tree list costs one round trip and shows a guest only the granted document", async () => {
    const all = await call("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(all.status).toBe(200);
    expect(trips(all.headers)).toBe(1);
    expect(all.body.data.map((d: { _id: string }) => d._id)).toEqual(
      expect.arrayContaining([t.folderId, t.docId, t.doc2Id]),
    );
    const guest = await call("GET", `/document/all/${t.projectId}`, { token: guestToken });
    expect(trips(guest.headers)).toBe(1);
    expect(guest.body.data.map((d: { _id: string }) => d._id)).toEqual([t.doc2Id]);
  });

  it("writes stay within three round trips", async () => {
    const created = await call("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name: "Trips", type: "FOLDER" },
    });
    expect(created.status).toBe(200);
    expect(trips(created.headers)).toBeLessThanOrEqual(3);
    const id = created.body.data._id;
    const moved = await call("PATCH", `/document/${id}`, {
      token: t.owner.token,
      body: { parentId: null, name: "Moved" },
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data).toMatchObject({ parentId: null, name: "Moved" });
    expect(trips(moved.headers)).toBeLessThanOrEqual(3);
    for (const [method, path] of [
      ["POST", `/document/${id}/publish`],
      ["DELETE", `/document/${id}/publish`],
      ["DELETE", `/document/${id}`],
      ["POST", `/document/${id}/restore`],
    ] as const) {
      const res = await call(method, path, {
        token: t.owner.token,
        body: method === "POST" && path.endsWith("publish") ? {} : undefined,
      });
      expect(res.status, `${method} ${path}`).toBe(200);
      expect(trips(res.headers), `${method} ${path}`).toBeLessThanOrEqual(3);
    }
    const invite = await call("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: t.viewer.email, documentId: id, role: "editor" },
    });
    expect(invite.status).toBe(200);
    expect(trips(invite.headers)).toBeLessThanOrEqual(3);
  });

  describe("conditional requests", () => {
    it("E10's ETag answers 304 on If-None-Match and changes when the document does", async () => {
      const first = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
      const again = await call("GET", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-none-match": etag },
      });
      expect(again.status).toBe(304);
      await ok("PATCH", `/document/${t.docId}`, { token: t.owner.token, body: { description: "changed" } });
      const after = await call("GET", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-none-match": etag },
      });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
    });

    it("PATCH with the current ETag succeeds and returns the new one; a stale ETag is 412 and changes nothing", async () => {
      const etag = (await call("GET", `/document/${t.docId}`, { token: t.owner.token })).headers.get("etag")!;
      const updated = await call("PATCH", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { name: "First" },
      });
      expect(updated.status).toBe(200);
      const fresh = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(updated.headers.get("etag")).toBe(fresh.headers.get("etag"));
      expect(updated.headers.get("etag")).not.toBe(etag);

      const stale = await call("PATCH", `/document/${t.docId}`, {
        token: t.owner.token,
        headers: { "if-match": etag },
        body: { name: "Lost update", parentId: null },
      });
      expectError(stale, 412, "PreconditionFailedError");
      expect(trips(stale.headers)).toBe(1);
      const unchanged = await ok("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(unchanged.data).toMatchObject({ name: "First", parentId: t.folderId });
    });

    it("DELETE with a stale ETag is 412 and deletes nothing; with the current one it deletes", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "To delete", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const etag = (await call("GET", `/document/${id}`, { token: t.owner.token })).headers.get("etag")!;
      await ok("PATCH", `/document/${id}`, { token: t.owner.token, body: { reference: "R-1" } });
      expectError(
        await call("DELETE", `/document/${id}`, { token: t.owner.token, headers: { "if-match": etag } }),
        412,
        "PreconditionFailedError",
      );
      expect((await call("GET", `/document/${id}`, { token: t.owner.token })).status).toBe(200);
      const current = (await call("GET", `/document/${id}`, { token: t.owner.token })).headers.get("etag")!;
      const deleted = await call("DELETE", `/document/${id}`, {
        token: t.owner.token,
        headers: { "if-match": current },
      });
      expect(deleted.status).toBe(200);
      expect((await call("GET", `/document/${id}`, { token: t.owner.token })).status).toBe(404);
    });

    it("If-Match uses the strong comparison (RFC 9110 §13.1.1): the current tag marked weak is 412, nothing changed", async () => {
      const etag = (await call("GET", `/document/${t.docId}`, { token: t.owner.token })).headers.get("etag")!;
      for (const [method, body] of [
        ["PATCH", { name: "Weakly matched" }],
        ["DELETE", undefined],
      ] as const) {
        expectError(
          await call(method, `/document/${t.docId}`, {
            token: t.owner.token,
            headers: { "if-match": `W/${etag}` },
            body,
          }),
          412,
          "PreconditionFailedError",
        );
      }
      const after = await call("GET", `/document/${t.docId}`, { token: t.owner.token });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).toBe(etag);
    });

    it("If-Match on a document the caller cannot see is 404, not 412", async () => {
      const res = await call("PATCH", `/document/${t.docId}`, {
        token: t.outsider.token,
        headers: { "if-match": '"0"' },
        body: { name: "x" },
      });
      expectError(res, 404, "NotFoundError");
    });
  });
});
