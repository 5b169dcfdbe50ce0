/** exportDocx: GET /document/docx/{documentId}/export (src/routes/docx/export.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant, expectError, ok } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import { env } from "cloudflare:test";
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
    it("keeps an ASCII name as is and adds .docx once", async () => {
      const doc = await newDocx("report.docx");
      const res = await exportDocx(doc._id);
      expect(res.headers.get("content-disposition")).toBe(
        `attachment; filename="report.docx"; filename*=UTF-8''report.docx`,
      );
    });
  });
});

// Security finding 8 (issue 34): a DOCX whose local and central headers agree on a small inflated size for
// word/document.xml while its deflate stream inflates to far more (or fewer) bytes. Every inflation stops at the
// declared size; an upload that disagrees with its headers is 415 with nothing stored, and answers quickly.
describe("lying-sizes", () => {
  const MiB = 1024 * 1024;

  let lyingMore: Uint8Array;
  beforeAll(async () => {
    lyingMore = buildLyingDocx({ inflatedBytes: 64 * MiB }); // declares 900,000 bytes in both headers
    buildLyingDocx({ inflatedBytes: 100_000 });
  });

  async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
    const started = performance.now();
    const value = await fn();
    return { value, ms: performance.now() - started };
  }

  describe("a DOCX whose headers lie about word/document.xml's inflated size", () => {
    it("E21 refuses to serve a lying archive stored before uploads were checked, and serves an honest one", async () => {
      const doc = (
        await ok("POST", "/document/docx", {
          token: t.owner.token,
          raw: docxBytes(),
          query: { projectId: t.projectId, name: "Legacy" },
        })
      ).data;
      const key = `docx/${doc._id}/${doc.external.resourceId}.docx`;
      // Written as the service wrote every blob before the fix: no record that its inflation was checked.
      await env.BLOBS.put(key, lyingMore, { httpMetadata: { contentType: DOCX_TYPE } });
      const { value: res, ms } = await timed(() =>
        call("GET", `/document/docx/${doc._id}/export`, { token: t.viewer.token }),
      );
      expectError(res, 422, "UnprocessableEntityError");
      expect(res.body.message).toMatch(/inflates past the 900000 bytes/);
      expect(ms).toBeLessThan(2000);
      const honest = docxBytes("legacy but honest");
      await env.BLOBS.put(key, honest, { httpMetadata: { contentType: DOCX_TYPE } });
      const served = await call("GET", `/document/docx/${doc._id}/export`, { token: t.viewer.token });
      expect(served.status).toBe(200);
      expect(served.headers.get("content-length")).toBe(String(honest.length));
      expect(new Uint8Array(served.body)).toEqual(honest);
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
  const create = (query: Record<string, string>) =>
    call("POST", "/document/docx", {
      token: t.owner.token,
      raw: docxBytes(),
      query,
      headers: { "content-type": DOCX_TYPE },
    });
  const exportDocx = (id: string, headers: Record<string, string> = {}, token = t.owner.token) =>
    call("GET", `/document/docx/${id}/export`, { token, headers });

  describe("E21 conditional export", () => {
    it("answers 404, not 304, to a caller who cannot read the document", async () => {
      const id = (await create({ projectId: t.projectId, name: "Private", parentId: t.folderId })).body.data._id;
      const etag = (await exportDocx(id)).headers.get("etag")!;
      expectError(await exportDocx(id, { "if-none-match": etag }, t.outsider.token), 404, "NotFoundError");
    });
  });
});
