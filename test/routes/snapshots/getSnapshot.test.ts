/** getSnapshot: GET /snapshot/{snapshotId} (src/routes/snapshots/get.ts) — its happy path, errors and request-path checks. */
/**
 * Conditional requests and round trips of the snapshot routes (src/routes/snapshots): a strong ETag on GET with 304,
 * If-Match on E8 PUT and DELETE (412, nothing changed), restore in one transaction.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { snapshotOfIn } from "../../support/snapshots";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});

const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
const snapshotOf = (blocks: unknown) => snapshotOfIn(t, blocks);
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
