/**
 * Conditional requests and round trips of the snapshot routes (src/routes/snapshots): a strong ETag on GET with 304,
 * If-Match on E8 PUT and DELETE (412, nothing changed), restore in one transaction.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});

const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
async function snapshotOf(blocks: unknown) {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, name: "Snap", type: "DOCUMENT" },
  });
  await ok("PUT", `/document/${doc.data._id}/content`, { token: t.owner.token, body: { blocks } });
  const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: doc.data._id, name: "S" } });
  return { documentId: doc.data._id as string, snapshotId: snap.data._id as string };
}
const get = (id: string, headers: Record<string, string> = {}) =>
  call("GET", `/snapshot/${id}`, { token: t.owner.token, headers });

describe("GET /snapshot/{id} conditional", () => {
  it("carries a strong ETag, answers 304 on If-None-Match in one round trip, and changes the tag on rename", async () => {
    const { snapshotId } = await snapshotOf(["frozen"]);
    const first = await get(snapshotId);
    expect(first.status).toBe(200);
    expect(first.body.data).toMatchObject({ _id: snapshotId, name: "S", blocks: ["frozen"] });
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(trips(first)).toBe(1);
    const again = await get(snapshotId, { "if-none-match": etag });
    expect(again.status).toBe(304);
    expect(trips(again)).toBe(1);

    await ok("PUT", `/snapshot/${snapshotId}`, { token: t.owner.token, body: { name: "Renamed" } });
    const renamed = await get(snapshotId, { "if-none-match": etag });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("etag")).not.toBe(etag);
  });

  it("answers 404, not 304, to a caller who cannot read the document", async () => {
    const { snapshotId } = await snapshotOf(["x"]);
    const etag = (await get(snapshotId)).headers.get("etag")!;
    expectError(
      await call("GET", `/snapshot/${snapshotId}`, { token: t.outsider.token, headers: { "if-none-match": etag } }),
      404,
      "NotFoundError",
    );
  });
});

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

describe("snapshot writes within their budget", () => {
  it("creates, lists and restores in at most 3, 2 and 3 round trips, keeping the replaced content object", async () => {
    const { documentId, snapshotId } = await snapshotOf(["original"]);
    await ok("PUT", `/document/${documentId}/content`, { token: t.owner.token, body: { blocks: ["changed"] } });
    const created = await call("POST", "/snapshot", { token: t.owner.token, body: { documentId, name: "Second" } });
    expect(created.status).toBe(200);
    expect(trips(created)).toBeLessThanOrEqual(3);
    const listed = await call("GET", `/snapshot/all/${documentId}`, { token: t.owner.token });
    expect(listed.body.data.map((s: { name: string }) => s.name)).toEqual(["Second", "S"]);
    expect(trips(listed)).toBeLessThanOrEqual(2);

    const restored = await call("POST", `/snapshot/${snapshotId}/restore`, { token: t.owner.token });
    expect(restored.status).toBe(200);
    expect(trips(restored)).toBeLessThanOrEqual(3);
    expect((await ok("GET", `/document/${documentId}/content`, { token: t.owner.token })).data.blocks).toEqual([
      "original",
    ]);
    const before = await ok("GET", `/snapshot/${restored.body.data.beforeRestoreSnapshotId}`, { token: t.owner.token });
    expect(before.data).toMatchObject({ name: "Before restore", blocks: ["changed"] });
    // Current content + the "Before restore"/"Second" object + the original's: each still readable, none orphaned.
    expect((await env.BLOBS.list({ prefix: `content/${documentId}/` })).objects).toHaveLength(3);
  });
});
