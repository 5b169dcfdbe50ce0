/** putDocxVersion: PUT /document/docx/{documentId} (src/routes/docx/putVersion.ts) — its happy path, errors and request-path checks. */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE, plainZipBytes, streamOf } from "../../support/content-fixtures";
import { buildLyingDocx } from "../../../converter/test/fixtures";
import { newDocxIn } from "../../support/docx";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("docx", () => {
  const newDocx = (name?: string, bytes?: Uint8Array) => newDocxIn(t, name, bytes);

  const exportDocx = (id: string, token = t.owner.token, headers?: Record<string, string>) =>
    call("GET", `/document/docx/${id}/export`, { token, headers });

  describe("PUT /document/docx/{id} and E21 export", () => {
    it("streams the newest version with its headers and bytes", async () => {
      const v1 = docxBytes("version one");
      const doc = await newDocx("Vertrag – Übersicht «final»", v1);
      const first = await exportDocx(doc._id, t.viewer.token);
      expect(first.status).toBe(200);
      expect(new Uint8Array(first.body)).toEqual(v1);

      const v2 = docxBytes("version two, longer than the first one");
      const put = await call("PUT", `/document/docx/${doc._id}`, {
        token: t.editor.token,
        raw: v2,
        headers: { "content-type": "application/octet-stream" },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body.data).toMatchObject({
        documentId: doc._id,
        version: 2,
        size: v2.length,
        etag: expect.any(String),
      });

      const res = await exportDocx(doc._id);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(DOCX_TYPE);
      expect(res.headers.get("content-length")).toBe(String(v2.length));
      expect(res.headers.get("etag")).toBe(put.body.data.etag);
      expect(res.headers.get("etag")).not.toBe(first.headers.get("etag"));
      const disposition = res.headers.get("content-disposition")!;
      expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+\.docx"; filename\*=UTF-8''/);
      expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent("Vertrag – Übersicht «final».docx")}`);
      expect(disposition).not.toMatch(/filename="[^"]*[^\x20-\x7e][^"]*"/);
      expect(new Uint8Array(res.body)).toEqual(v2);

      // Both versions stay stored.
      expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(2);

      const cached = await exportDocx(doc._id, t.owner.token, { "if-none-match": put.body.data.etag });
      expect(cached.status).toBe(304);
    });

    it("answers errors", async () => {
      const doc = await newDocx();
      expectError(await exportDocx(t.docId), 409, "ConflictError");
      expectError(await exportDocx("missing"), 404, "NotFoundError");
      expectError(await exportDocx(doc._id, t.outsider.token), 404, "NotFoundError");
      expectError(await exportDocx("bad$id"), 400, "ValidationError");

      expectError(
        await call("PUT", `/document/docx/${t.docId}`, { token: t.owner.token, raw: docxBytes() }),
        409,
        "ConflictError",
      );
      expectError(
        await call("PUT", `/document/docx/${doc._id}`, { token: t.viewer.token, raw: docxBytes() }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PUT", `/document/docx/${doc._id}`, { token: t.outsider.token, raw: docxBytes() }),
        404,
        "NotFoundError",
      );
      expectError(
        await call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: streamOf(docxBytes()) }),
        411,
        "LengthRequiredError",
      );
      expectError(
        await call("PUT", `/document/docx/${doc._id}`, {
          token: t.owner.token,
          raw: streamOf(docxBytes()),
          headers: { "content-length": String(60 * 1024 * 1024) },
        }),
        413,
        "PayloadTooLargeError",
      );
      expectError(
        await call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: plainZipBytes() }),
        415,
        "UnsupportedMediaTypeError",
      );
      expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(1);

      await ok("DELETE", `/document/${doc._id}`, { token: t.owner.token });
      expectError(await exportDocx(doc._id), 404, "NotFoundError");
    });
  });
});

// Security finding 8 (issue 34): a DOCX whose local and central headers agree on a small inflated size for
// word/document.xml while its deflate stream inflates to far more (or fewer) bytes. Every inflation stops at the
// declared size; an upload that disagrees with its headers is 415 with nothing stored, and answers quickly.
describe("lying-sizes", () => {
  const MiB = 1024 * 1024;

  let lyingMore: Uint8Array;
  let lyingFewer: Uint8Array;
  beforeAll(async () => {
    lyingMore = buildLyingDocx({ inflatedBytes: 64 * MiB }); // declares 900,000 bytes in both headers
    lyingFewer = buildLyingDocx({ inflatedBytes: 100_000 });
  });

  async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const started = performance.now();
    const value = await fn();
    return { value, ms: performance.now() - started };
  }

  describe("a DOCX whose headers lie about word/document.xml's inflated size", () => {
    it("PUT /document/docx/{id} answers 415 and keeps the one stored version", async () => {
      const doc = (
        await ok("POST", "/document/docx", {
          token: t.owner.token,
          raw: docxBytes(),
          query: { projectId: t.projectId, name: "Honest" },
        })
      ).data;
      for (const bytes of [lyingMore, lyingFewer]) {
        const { value: res, ms } = await timed(() =>
          call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: bytes }),
        );
        expectError(res, 415, "UnsupportedMediaTypeError");
        expect(ms).toBeLessThan(2000);
      }
      expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(1);
      const res = await call("GET", `/document/docx/${doc._id}/export`, { token: t.owner.token });
      expect(res.status).toBe(200);
      expect(new Uint8Array(res.body)).toEqual(docxBytes());
    });
  });
});

/**
 * Round trips and conditional reads of the DOCX routes (src/routes/docx): E21 in one D1 round trip with R2
 * evaluating If-None-Match (`onlyIf`) against the blob's own ETag; writes within 3.
 */
describe("request-path", () => {
  beforeAll(async () => {
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
  });
});
