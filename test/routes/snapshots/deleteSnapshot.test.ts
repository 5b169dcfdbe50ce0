/** deleteSnapshot: DELETE /snapshot/{snapshotId} (src/routes/snapshots/delete.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { env } from "cloudflare:test";
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
    it("refuses a stale DELETE with 412 and keeps the snapshot and its content; the current ETag deletes it", async () => {
      const { snapshotId } = await snapshotOf(["b"]);
      const stale = (await get(snapshotId)).headers.get("etag")!;
      await ok("PUT", `/snapshot/${snapshotId}`, { token: t.owner.token, body: { description: "changed" } });
      expectError(
        await call("DELETE", `/snapshot/${snapshotId}`, { token: t.owner.token, headers: { "if-match": stale } }),
        412,
        "PreconditionFailedError",
      );
      expect((await get(snapshotId)).body.data.blocks).toEqual(["b"]);
      const current = (await get(snapshotId)).headers.get("etag")!;
      const deleted = await call("DELETE", `/snapshot/${snapshotId}`, {
        token: t.owner.token,
        headers: { "if-match": current },
      });
      expect(deleted.status).toBe(200);
      expect(trips(deleted)).toBeLessThanOrEqual(3);
      expectError(await get(snapshotId), 404, "NotFoundError");
    });
  });
});

describe("snapshots", () => {
  const contentKeys = async (id: string) =>
    (await env.BLOBS.list({ prefix: `content/${id}/` })).objects.map((o) => o.key).sort();

  describe("snapshots", () => {
    it("deletes a snapshot and its content object only when nothing else shares it", async () => {
      const id = await newDoc("Delete");
      await put(id, ["a"]);
      const [current] = await contentKeys(id);
      const shared1 = await snap(id, "s1");
      const shared2 = await snap(id, "s2");
      expect(await ok("DELETE", `/snapshot/${shared1.data._id}`, { token: t.editor.token })).toEqual({
        data: { success: true },
      });
      expect(await contentKeys(id)).toEqual([current]);
      expectError(await call("GET", `/snapshot/${shared1.data._id}`, { token: t.owner.token }), 404, "NotFoundError");

      await put(id, ["b"]);
      // The old object is kept for s2, the new one is current.
      expect(await contentKeys(id)).toHaveLength(2);
      await ok("DELETE", `/snapshot/${shared2.data._id}`, { token: t.owner.token });
      const left = await contentKeys(id);
      expect(left).toHaveLength(1);
      expect(left).not.toContain(current);
      expect((await ok("GET", `/document/${id}/content`, { token: t.owner.token })).data.blocks).toEqual(["b"]);

      // A snapshot of the current content: deleting it keeps the object the document still uses.
      const s3 = await snap(id, "s3");
      await ok("DELETE", `/snapshot/${s3.data._id}`, { token: t.owner.token });
      expect(await contentKeys(id)).toEqual(left);
      expectError(await call("DELETE", `/snapshot/${s3.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
    });
  });
});
