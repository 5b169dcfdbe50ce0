/**
 * Round trips and conditional reads of the DOCX routes (src/routes/docx): E21 in one D1 round trip with R2
 * evaluating If-None-Match (`onlyIf`) against the blob's own ETag; writes within 3.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});

const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));
const create = (query: Record<string, string>) =>
  call("POST", "/document/docx", {
    token: t.owner.token,
    raw: docxBytes(),
    query,
    headers: { "content-type": DOCX_TYPE },
  });
const exportDocx = (id: string, headers: Record<string, string> = {}, token = t.owner.token) =>
  call("GET", `/document/docx/${id}/export`, { token, headers });

describe("DOCX round trips", () => {
  it("creates in a folder and at the root, stores versions and marks seeded within 3 round trips each", async () => {
    const inFolder = await create({ projectId: t.projectId, name: "In folder", parentId: t.folderId });
    expect(inFolder.status, JSON.stringify(inFolder.body)).toBe(200);
    expect(trips(inFolder)).toBeLessThanOrEqual(3);
    const atRoot = await create({ projectId: t.projectId, name: "At root" });
    expect(atRoot.status).toBe(200);
    expect(trips(atRoot)).toBeLessThanOrEqual(3);
    // New documents land last among their siblings.
    const second = await create({ projectId: t.projectId, name: "At root 2" });
    expect(second.body.data.order).toBeGreaterThan(atRoot.body.data.order);

    const id = inFolder.body.data._id;
    const put = await call("PUT", `/document/docx/${id}`, {
      token: t.owner.token,
      raw: docxBytes("v2"),
      headers: { "content-type": DOCX_TYPE },
    });
    expect(put.status).toBe(200);
    expect(trips(put)).toBeLessThanOrEqual(3);
    const seeded = await call("POST", `/document/docx/${id}/mark-seeded`, { token: t.owner.token });
    expect(seeded.status).toBe(200);
    expect(trips(seeded)).toBeLessThanOrEqual(3);
  });

  it("refuses a parent that is not a folder and a viewer creating at the root", async () => {
    const doc = await create({ projectId: t.projectId, name: "Leaf" });
    expectError(
      await create({ projectId: t.projectId, name: "x", parentId: doc.body.data._id }),
      400,
      "ValidationError",
    );
    const viewer = await call("POST", "/document/docx", {
      token: t.viewer.token,
      raw: docxBytes(),
      query: { projectId: t.projectId, name: "x" },
      headers: { "content-type": DOCX_TYPE },
    });
    expectError(viewer, 403, "ForbiddenError");
    const outsider = await call("POST", "/document/docx", {
      token: t.outsider.token,
      raw: docxBytes(),
      query: { projectId: t.projectId, name: "x" },
      headers: { "content-type": DOCX_TYPE },
    });
    expectError(outsider, 404, "NotFoundError");
  });
});

describe("Idempotency-Key on a DOCX upload (docs/api-guide.md › HTTP semantics: retries, caching, replicas)", () => {
  it("runs once and is replayed, whatever the DOCX media type's name contains (never read as text to be hashed)", async () => {
    const key = `docx-${crypto.randomUUID()}`;
    const send = () =>
      call("POST", "/document/docx", {
        token: t.owner.token,
        raw: docxBytes(),
        query: { projectId: t.projectId, name: "Keyed upload" },
        headers: { "content-type": DOCX_TYPE, "idempotency-key": key },
      });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(first.body);
    const list = await call("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(list.body.data.filter((d: { name: string }) => d.name === "Keyed upload")).toHaveLength(1);
  });
});

describe("E21 conditional export", () => {
  it("streams in one round trip with the blob's ETag and answers 304 when If-None-Match lists it", async () => {
    const id = (await create({ projectId: t.projectId, name: "Export" })).body.data._id;
    const full = await exportDocx(id);
    expect(full.status).toBe(200);
    expect(trips(full)).toBe(1);
    // A blob is never sniffed into something a browser would run.
    expect(full.headers.get("x-content-type-options")).toBe("nosniff");
    const etag = full.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]+"$/);
    const cached = await exportDocx(id, { "if-none-match": `"stale", ${etag}` });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
    expect(trips(cached)).toBe(1);
    expect((await exportDocx(id, { "if-none-match": '"stale"' })).status).toBe(200);

    await call("PUT", `/document/docx/${id}`, {
      token: t.owner.token,
      raw: docxBytes("newer"),
      headers: { "content-type": DOCX_TYPE },
    });
    const moved = await exportDocx(id, { "if-none-match": etag });
    expect(moved.status).toBe(200);
    expect(moved.headers.get("etag")).not.toBe(etag);
    expect(moved.headers.get("content-disposition")).toBe(
      `attachment; filename="Export.docx"; filename*=UTF-8''Export.docx`,
    );
  });

  it("answers 404, not 304, to a caller who cannot read the document", async () => {
    const id = (await create({ projectId: t.projectId, name: "Private", parentId: t.folderId })).body.data._id;
    const etag = (await exportDocx(id)).headers.get("etag")!;
    expectError(await exportDocx(id, { "if-none-match": etag }, t.outsider.token), 404, "NotFoundError");
  });
});
