/** getContent: GET /document/{documentId}/content (src/routes/content/get.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("content", () => {
  const contentOf = (docId: string, token = t.owner.token) => ok("GET", `/document/${docId}/content`, { token });
  const putContent = (docId: string, body: unknown, token = t.owner.token) =>
    call("PUT", `/document/${docId}/content`, { token, body });

  describe("document content", () => {
    it("reads a never-written document as version 0 with no blocks", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Empty", type: "DOCUMENT" },
      });
      expect(await contentOf(doc.data._id)).toEqual({ data: { documentId: doc.data._id, version: 0, blocks: [] } });
    });

    it("follows the document: missing, deleted and unreadable are 404, viewers cannot write", async () => {
      expectError(await call("GET", "/document/nope/content", { token: t.owner.token }), 404, "NotFoundError");
      expectError(await putContent("nope", { blocks: [] }), 404, "NotFoundError");
      expectError(await call("GET", `/document/${t.docId}/content`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await putContent(t.docId, { blocks: [] }, t.viewer.token), 403, "ForbiddenError");
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Gone", type: "DOCUMENT" },
      });
      await ok("DELETE", `/document/${doc.data._id}`, { token: t.owner.token });
      expectError(
        await call("GET", `/document/${doc.data._id}/content`, { token: t.owner.token }),
        404,
        "NotFoundError",
      );
      expectError(await putContent(doc.data._id, { blocks: [] }), 404, "NotFoundError");
    });
  });

  describe("readContents (the service E5 reads blocks through)", () => {
    it("never fails a read racing writes that delete the object it was about to read", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Busy", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const jobs: Promise<{ status: number }>[] = [];
      for (let i = 0; i < 10; i++) {
        jobs.push(putContent(id, { blocks: [i] }));
        jobs.push(call("GET", `/document/${id}/content`, { token: t.owner.token }));
      }
      const results = await Promise.all(jobs);
      expect(
        results.map((r) => r.status),
        JSON.stringify(results.filter((r) => r.status !== 200)),
      ).toEqual(results.map(() => 200));
    });
  });
});

/**
 * Conditional requests and round trips of GET/PUT /document/{id}/content and /settings (src/routes/content):
 * a version-derived strong ETag, 304 on If-None-Match, If-Match meaning baseVersion (412, nothing written).
 */
describe("request-path", () => {
  beforeAll(async () => {
    // Spend the token's lastUsedAt touch outside the measured calls.
    await call("GET", "/me", { token: t.owner.token });
  });

  const newDoc = async (name: string) =>
    (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, name, type: "DOCUMENT" } }))
      .data._id as string;
  const get = (id: string, headers: Record<string, string> = {}) =>
    call("GET", `/document/${id}/content`, { token: t.owner.token, headers });
  const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
    call("PUT", `/document/${id}/content`, { token: t.owner.token, body, headers });
  const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

  describe("GET /document/{id}/content conditional", () => {
    it("carries a strong ETag that changes with each version, and answers 304 on If-None-Match", async () => {
      const id = await newDoc("Etag");
      const empty = await get(id);
      const etag0 = empty.headers.get("etag")!;
      expect(etag0).toMatch(/^"[^"]+"$/);
      expect((await get(id, { "if-none-match": etag0 })).status).toBe(304);

      const written = await put(id, { blocks: ["one"] });
      expect(written.status).toBe(200);
      const first = await get(id);
      const etag1 = first.headers.get("etag")!;
      expect(etag1).not.toBe(etag0);
      expect(written.headers.get("etag")).toBe(etag1);
      expect((await get(id, { "if-none-match": etag0 })).status).toBe(200);
      const notModified = await get(id, { "if-none-match": `"other", ${etag1}` });
      expect(notModified.status).toBe(304);
      expect(notModified.headers.get("etag")).toBe(etag1);
      expect(trips(notModified)).toBe(1);
      expect(trips(first)).toBe(1);
    });

    it("answers 404 rather than 304 to a caller who cannot read the document", async () => {
      const id = await newDoc("Hidden");
      const etag = (await get(id)).headers.get("etag")!;
      expectError(
        await call("GET", `/document/${id}/content`, { token: t.outsider.token, headers: { "if-none-match": etag } }),
        404,
        "NotFoundError",
      );
    });
  });
});
