/** createSnapshot: POST /snapshot (src/routes/snapshots/create.ts) — its happy path, errors and request-path checks. */
/**
 * Conditional requests and round trips of the snapshot routes (src/routes/snapshots): a strong ETag on GET with 304,
 * If-Match on E8 PUT and DELETE (412, nothing changed), restore in one transaction.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, seedTenant, type Tenant } from "../../support/harness";
import { snapshotOfIn } from "../../support/snapshots";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});

const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
const snapshotOf = (blocks: unknown) => snapshotOfIn(t, blocks);

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
