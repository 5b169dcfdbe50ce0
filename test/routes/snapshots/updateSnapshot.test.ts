/** updateSnapshot: PUT /snapshot/{snapshotId} (src/routes/snapshots/update.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { snapshotDocs, snapshotOfIn } from "../../support/snapshots";

// One tenant for the file: every case makes its own documents and snapshots.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});
const { newDoc, put, snap } = snapshotDocs(() => t);

/**
 * Conditional requests and round trips of the snapshot routes (src/routes/snapshots): a strong ETag on GET with 304,
 * If-Match on E8 PUT and DELETE (412, nothing changed), restore in one transaction.
 */
describe("request-path", () => {
  const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
  const snapshotOf = (blocks: unknown) => snapshotOfIn(t, blocks);
  const get = (id: string, headers: Record<string, string> = {}) =>
    call("GET", `/snapshot/${id}`, { token: t.owner.token, headers });

  describe("If-Match on E8 PUT and DELETE /snapshot/{id}", () => {
    it("renames with the current ETag and refuses a stale one with 412, changing nothing", async () => {
      const { snapshotId } = await snapshotOf(["a"]);
      const etag = (await get(snapshotId)).headers.get("etag")!;
      const renamed = await call("PUT", `/snapshot/${snapshotId}`, {
        token: t.owner.token,
        body: { name: "One" },
        headers: { "if-match": etag },
      });
      expect(renamed.status).toBe(200);
      expect(trips(renamed)).toBeLessThanOrEqual(3);
      expectError(
        await call("PUT", `/snapshot/${snapshotId}`, {
          token: t.owner.token,
          body: { name: "Two" },
          headers: { "if-match": etag },
        }),
        412,
        "PreconditionFailedError",
      );
      expect((await get(snapshotId)).body.data.name).toBe("One");
    });

    it("answers with the snapshot's new ETag, the one a following GET returns, so writes can chain on If-Match", async () => {
      const { snapshotId } = await snapshotOf(["e"]);
      const etag = (await get(snapshotId)).headers.get("etag")!;
      const renamed = await call("PUT", `/snapshot/${snapshotId}`, {
        token: t.owner.token,
        body: { name: "Chained" },
        headers: { "if-match": etag },
      });
      expect(renamed.status).toBe(200);
      const fresh = await get(snapshotId);
      expect(renamed.headers.get("etag")).toBe(fresh.headers.get("etag"));
      expect(renamed.headers.get("etag")).not.toBe(etag);
      const again = await call("PUT", `/snapshot/${snapshotId}`, {
        token: t.owner.token,
        body: { description: "next" },
        headers: { "if-match": renamed.headers.get("etag")! },
      });
      expect(again.status).toBe(200);
    });

    it("compares If-Match strongly: the current tag marked weak (W/) is 412 on PUT and DELETE", async () => {
      const { snapshotId } = await snapshotOf(["w"]);
      const etag = (await get(snapshotId)).headers.get("etag")!;
      expectError(
        await call("PUT", `/snapshot/${snapshotId}`, {
          token: t.owner.token,
          body: { name: "Weak" },
          headers: { "if-match": `W/${etag}` },
        }),
        412,
        "PreconditionFailedError",
      );
      expectError(
        await call("DELETE", `/snapshot/${snapshotId}`, { token: t.owner.token, headers: { "if-match": `W/${etag}` } }),
        412,
        "PreconditionFailedError",
      );
      expect((await get(snapshotId)).body.data.name).toBe("S");
    });

    it("checks access before the precondition", async () => {
      const { snapshotId } = await snapshotOf(["c"]);
      expectError(
        await call("PUT", `/snapshot/${snapshotId}`, {
          token: t.viewer.token,
          body: { name: "x" },
          headers: { "if-match": '"x"' },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("DELETE", `/snapshot/${snapshotId}`, { token: t.outsider.token, headers: { "if-match": '"x"' } }),
        404,
        "NotFoundError",
      );
    });
  });
});

describe("snapshots", () => {
  describe("snapshots", () => {
    it("creates, lists newest first, reads with blocks, renames", async () => {
      const id = await newDoc();
      const empty = await snap(id, "Empty", t.editor.token);
      expect(empty.data).toEqual({
        _id: expect.any(String),
        documentId: id,
        name: "Empty",
        description: "",
        contentVersion: 0,
        docxVersion: null,
        userId: t.editor.id,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      });
      await put(id, [{ p: "one" }]);
      const one = await snap(id, "One", t.owner.token, "first draft");
      expect(one.data).toMatchObject({ contentVersion: 1, description: "first draft" });

      const list = await ok("GET", `/snapshot/all/${id}`, { token: t.viewer.token });
      expect(list.data.map((s: any) => s.name)).toEqual(["One", "Empty"]);

      const got = await ok("GET", `/snapshot/${one.data._id}`, { token: t.viewer.token });
      expect(got.data).toEqual({ ...one.data, blocks: [{ p: "one" }] });
      expect((await ok("GET", `/snapshot/${empty.data._id}`, { token: t.owner.token })).data.blocks).toEqual([]);

      expect(
        await ok("PUT", `/snapshot/${one.data._id}`, { token: t.editor.token, body: { name: "Renamed" } }),
      ).toEqual({
        data: { success: true },
      });
      expect(await ok("PUT", `/snapshot/${one.data._id}`, { token: t.owner.token, body: { description: "" } })).toEqual(
        {
          data: { success: true },
        },
      );
      const after = await ok("GET", `/snapshot/${one.data._id}`, { token: t.owner.token });
      expect(after.data).toMatchObject({ name: "Renamed", description: "" });
      expect(after.data.updatedAt).toBeGreaterThanOrEqual(one.data.updatedAt);
      // A client may send back what it read.
      const { blocks: _b, ...record } = after.data;
      expect(
        (await call("PUT", `/snapshot/${one.data._id}`, { token: t.owner.token, body: { ...record, name: "Again" } }))
          .status,
      ).toBe(200);
    });

    it("answers errors", async () => {
      const id = await newDoc("Errors");
      const s = await snap(id, "s");
      // E8: neither name nor description.
      expectError(
        await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: {} }),
        400,
        "ValidationError",
      );
      expectError(
        await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: { name: "" } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: { name: "x", bogus: 1 } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("PUT", "/snapshot/missing", { token: t.owner.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/snapshot/${s.data._id}`, { token: t.outsider.token, body: { name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/snapshot/${s.data._id}`, { token: t.viewer.token, body: { name: "x" } }),
        403,
        "ForbiddenError",
      );

      expectError(
        await call("POST", "/snapshot", { token: t.owner.token, body: { documentId: id } }),
        400,
        "ValidationError",
      );
      expectError(
        await call("POST", "/snapshot", { token: t.owner.token, body: { documentId: "missing", name: "x" } }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("POST", "/snapshot", { token: t.viewer.token, body: { documentId: id, name: "x" } }),
        403,
        "ForbiddenError",
      );
      expectError(await call("GET", "/snapshot/all/missing", { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/snapshot/all/${id}`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", `/snapshot/${s.data._id}`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(
        await call("POST", `/snapshot/${s.data._id}/restore`, { token: t.viewer.token }),
        403,
        "ForbiddenError",
      );
      expectError(await call("POST", "/snapshot/missing/restore", { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("DELETE", `/snapshot/${s.data._id}`, { token: t.viewer.token }), 403, "ForbiddenError");

      await ok("DELETE", `/document/${id}`, { token: t.owner.token });
      expectError(await call("GET", `/snapshot/${s.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/snapshot/all/${id}`, { token: t.owner.token }), 404, "NotFoundError");
    });
  });
});
