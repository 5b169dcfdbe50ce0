/** putContent: PUT /document/{documentId}/content (src/routes/content/put.ts) — its happy path, errors and request-path checks. */
import { env } from "cloudflare:test";
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

  async function contentObjects(docId: string) {
    return (await env.BLOBS.list({ prefix: `content/${docId}/` })).objects.map((o) => o.key);
  }

  describe("document content", () => {
    it("writes versions, keeps one object per document and returns exactly what was written", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Written", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const blocks = [
        { type: "heading", text: "Title ✓", attrs: { level: 1 } },
        { type: "paragraph", text: "x".repeat(1000) },
      ];
      const first = await putContent(id, { blocks, baseVersion: 0 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ data: { version: 1 } });
      expect(await contentOf(id, t.viewer.token)).toEqual({ data: { documentId: id, version: 1, blocks } });

      const second = await putContent(id, { blocks: { any: "json" } }, t.editor.token);
      expect(second.body).toEqual({ data: { version: 2 } });
      expect((await contentOf(id)).data).toEqual({ documentId: id, version: 2, blocks: { any: "json" } });
      expect(await contentObjects(id)).toHaveLength(1);
    });

    it("refuses a stale baseVersion with 409 and writes nothing", async () => {
      await ok("PUT", `/document/${t.docId}/content`, { token: t.owner.token, body: { blocks: ["a"] } });
      const before = await contentOf(t.docId);
      const res = await putContent(t.docId, { blocks: ["stale"], baseVersion: before.data.version - 1 });
      expectError(res, 409, "ConflictError");
      expect(await contentOf(t.docId)).toEqual(before);
      expect(await contentObjects(t.docId)).toHaveLength(1);
    });

    it("lets exactly one of two concurrent writes with the same baseVersion win", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Race", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      for (const base of [0, 1]) {
        const results = await Promise.all(
          ["left", "right", "middle"].map((who) => putContent(id, { blocks: [who], baseVersion: base })),
        );
        const winners = results.filter((r) => r.status === 200);
        expect(winners, JSON.stringify(results.map((r) => r.body))).toHaveLength(1);
        for (const r of results.filter((r) => r.status !== 200)) expectError(r, 409, "ConflictError");
        expect(winners[0]!.body.data.version).toBe(base + 1);
        const now = await contentOf(id);
        expect(now.data.version).toBe(base + 1);
        expect(["left", "right", "middle"]).toContain(now.data.blocks[0]);
        // Losers cleaned up their objects: only the winner's remains.
        expect(await contentObjects(id)).toHaveLength(1);
      }
    });

    it("serializes concurrent writes without baseVersion into distinct versions", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Many", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const results = await Promise.all(
        [1, 2, 3].map((n) => ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks: [n] } })),
      );
      expect(results.map((r) => r.data.version).sort()).toEqual([1, 2, 3]);
      expect((await contentOf(id)).data.version).toBe(3);
      expect(await contentObjects(id)).toHaveLength(1);
    });

    it("validates the body", async () => {
      expectError(await putContent(t.docId, {}), 400, "ValidationError");
      expectError(await putContent(t.docId, { blocks: [], extra: 1 }), 400, "ValidationError");
      expectError(await putContent(t.docId, { blocks: [], baseVersion: -1 }), 400, "ValidationError");
      expectError(await putContent(t.docId, { blocks: [], baseVersion: "1" }), 400, "ValidationError");
      expectError(
        await call("PUT", `/document/${t.docId}/content`, {
          token: t.owner.token,
          raw: "{not json",
          headers: { "content-type": "application/json" },
        }),
        400,
        "ValidationError",
      );
      expectError(await call("GET", "/document/bad$id/content", { token: t.owner.token }), 400, "ValidationError");
    });

    it("refuses a body over 10 MiB with 413", async () => {
      const res = await call("PUT", `/document/${t.docId}/content`, {
        token: t.owner.token,
        raw: JSON.stringify({ blocks: ["x".repeat(10 * 1024 * 1024)] }),
        headers: { "content-type": "application/json" },
      });
      expectError(res, 413, "PayloadTooLargeError");
    });
  });

  describe("readContents (the service E5 reads blocks through)", () => {
    it("reads many documents at once, unwritten ones as version 0 and []", async () => {
      const { createDb } = await import("../../../src/db/client");
      const { serviceContext, workerActor } = await import("../../../src/services/context");
      const { readContents, readSettings } = await import("../../../src/services/content/store");
      const ids: string[] = [];
      for (let i = 0; i < 8; i++) {
        const doc = await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: `Bulk ${i}`, type: "DOCUMENT" },
        });
        ids.push(doc.data._id);
        if (i % 2 === 0)
          await ok("PUT", `/document/${doc.data._id}/content`, { token: t.owner.token, body: { blocks: [{ i }] } });
      }
      await ok("PUT", `/document/${ids[0]}/settings`, { token: t.owner.token, body: { listTemplateId: "tpl" } });
      // The directory beside the shard database of the project's organization, as a routed request has them.
      const ctx = serviceContext(env, createDb(env.DB), workerActor).on(t.projectId);
      const contents = await readContents(ctx, [...ids, ids[0]!, "never-existed"]);
      expect(contents.size).toBe(9);
      ids.forEach((id, i) => {
        expect(contents.get(id)).toEqual(
          i % 2 === 0 ? { documentId: id, version: 1, blocks: [{ i }] } : { documentId: id, version: 0, blocks: [] },
        );
      });
      expect(contents.get("never-existed")).toEqual({ documentId: "never-existed", version: 0, blocks: [] });
      const settings = await readSettings(ctx, ids);
      expect(settings.get(ids[0]!)).toEqual({ listTemplateId: "tpl", importedTermId: "" });
      expect(settings.get(ids[1]!)).toEqual({ listTemplateId: "", importedTermId: "" });
    });
  });

  /** Blocks nested `depth` deep through `children` (docs/api-guide.md › Limits: at most 32). */
  function nestedBlocks(depth: number): unknown[] {
    let node: Record<string, unknown> = { id: `n${depth}`, type: "paragraph", props: {}, content: [], children: [] };
    for (let d = depth - 1; d >= 1; d--)
      node = { id: `n${d}`, type: "bulletListItem", props: {}, content: [], children: [node] };
    return [node];
  }

  describe("content nesting bound", () => {
    it("refuses blocks nested 1,000 deep (and 33) with 422 naming the path of the first block past 32, and writes nothing", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Deep", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      await ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks: ["kept"] } });
      for (const depth of [1000, 33]) {
        const res = await putContent(id, { blocks: nestedBlocks(depth) });
        expectError(res, 422, "UnprocessableEntityError");
        expect(res.body.message).toMatch(/32/);
        expect(res.body.details).toEqual([
          { path: "blocks.0" + ".children.0".repeat(32), message: expect.any(String) },
        ]);
      }
      expect(await contentOf(id)).toEqual({ data: { documentId: id, version: 1, blocks: ["kept"] } });
      expect(await contentObjects(id)).toHaveLength(1);
    });

    it("accepts blocks nested exactly 32 deep, and refuses JSON nested deeper than blocks can be outside `children`", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "At the bound", type: "DOCUMENT" },
      });
      const id = doc.data._id;
      const blocks = nestedBlocks(32);
      expect((await putContent(id, { blocks })).status).toBe(200);
      expect((await contentOf(id)).data.blocks).toEqual(blocks);
      // Deep arrays in a block's content are no blocks, but no walk of them may recurse without end either.
      const deep = `{"blocks":[{"type":"paragraph","content":${"[".repeat(100000)}"x"${"]".repeat(100000)},"children":[]}]}`;
      const res = await call("PUT", `/document/${id}/content`, {
        token: t.owner.token,
        raw: deep,
        headers: { "content-type": "application/json" },
      });
      expectError(res, 422, "UnprocessableEntityError");
      expect(res.body.details[0].path).toBe("blocks.0.content" + ".0".repeat(126));
      expect((await contentOf(id)).data.version).toBe(1);
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

  describe("PUT /document/{id}/content If-Match", () => {
    it("writes when If-Match names the current version and refuses a stale one with 412, writing nothing", async () => {
      const id = await newDoc("IfMatch");
      const v0 = (await get(id)).headers.get("etag")!;
      const first = await put(id, { blocks: ["a"] }, { "if-match": v0 });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ data: { version: 1 } });
      expect(trips(first)).toBeLessThanOrEqual(3);

      const objectsBefore = (await env.BLOBS.list({ prefix: `content/${id}/` })).objects.length;
      expectError(await put(id, { blocks: ["stale"] }, { "if-match": v0 }), 412, "PreconditionFailedError");
      expect((await get(id)).body).toEqual({ data: { documentId: id, version: 1, blocks: ["a"] } });
      expect((await env.BLOBS.list({ prefix: `content/${id}/` })).objects.length).toBe(objectsBefore);

      const v1 = first.headers.get("etag")!;
      expect((await put(id, { blocks: ["b"] }, { "if-match": `"nope", ${v1}` })).status).toBe(200);
      expect((await put(id, { blocks: ["c"] }, { "if-match": "*" })).status).toBe(200);
      expect((await get(id)).body.data).toMatchObject({ version: 3, blocks: ["c"] });
    });

    it("compares If-Match strongly: the current tag marked weak (W/) is 412 and writes nothing", async () => {
      const id = await newDoc("Weak");
      const v0 = (await get(id)).headers.get("etag")!;
      expectError(await put(id, { blocks: ["weak"] }, { "if-match": `W/${v0}` }), 412, "PreconditionFailedError");
      expect((await get(id)).body).toEqual({ data: { documentId: id, version: 0, blocks: [] } });
    });

    it("lets exactly one of two concurrent writes with the same If-Match win; the other is 412", async () => {
      const id = await newDoc("Race");
      const etag = (await put(id, { blocks: ["base"] })).headers.get("etag")!;
      const results = await Promise.all([
        put(id, { blocks: ["x"] }, { "if-match": etag }),
        put(id, { blocks: ["y"] }, { "if-match": etag }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
      expect((await get(id)).body.data.version).toBe(2);
    });

    it("checks access before the precondition: a viewer is 403, an outsider 404", async () => {
      const id = await newDoc("Access");
      const etag = (await get(id)).headers.get("etag")!;
      expectError(
        await call("PUT", `/document/${id}/content`, {
          token: t.viewer.token,
          body: { blocks: [] },
          headers: { "if-match": etag },
        }),
        403,
        "ForbiddenError",
      );
      expectError(
        await call("PUT", `/document/${id}/content`, {
          token: t.outsider.token,
          body: { blocks: [] },
          headers: { "if-match": '"x"' },
        }),
        404,
        "NotFoundError",
      );
    });
  });
});
