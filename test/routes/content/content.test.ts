import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const contentOf = (docId: string, token = t.owner.token) => ok("GET", `/document/${docId}/content`, { token });
const putContent = (docId: string, body: unknown, token = t.owner.token) =>
  call("PUT", `/document/${docId}/content`, { token, body });

async function contentObjects(docId: string) {
  return (await env.BLOBS.list({ prefix: `content/${docId}/` })).objects.map((o) => o.key);
}

describe("document content", () => {
  it("reads a never-written document as version 0 with no blocks", async () => {
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Empty", type: "DOCUMENT" },
    });
    expect(await contentOf(doc.data._id)).toEqual({ data: { documentId: doc.data._id, version: 0, blocks: [] } });
  });

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
    expectError(await call("GET", `/document/${doc.data._id}/content`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await putContent(doc.data._id, { blocks: [] }), 404, "NotFoundError");
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
      expect(res.body.details).toEqual([{ path: "blocks.0" + ".children.0".repeat(32), message: expect.any(String) }]);
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

describe("document settings", () => {
  it("reads empty strings until set, then merges partial updates", async () => {
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Settings", type: "DOCUMENT" },
    });
    const id = doc.data._id;
    expect(await ok("GET", `/document/${id}/settings`, { token: t.viewer.token })).toEqual({
      data: { listTemplateId: "", importedTermId: "" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.editor.token, body: { listTemplateId: "tpl-1" } }),
    ).toEqual({
      data: { listTemplateId: "tpl-1", importedTermId: "" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.owner.token, body: { importedTermId: "term-9" } }),
    ).toEqual({
      data: { listTemplateId: "tpl-1", importedTermId: "term-9" },
    });
    expect(
      await ok("PUT", `/document/${id}/settings`, { token: t.owner.token, body: { listTemplateId: null } }),
    ).toEqual({
      data: { listTemplateId: "", importedTermId: "term-9" },
    });
    expect(await ok("GET", `/document/${id}/settings`, { token: t.owner.token })).toEqual({
      data: { listTemplateId: "", importedTermId: "term-9" },
    });
  });

  it("answers errors", async () => {
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.owner.token, body: { other: "x" } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.owner.token, body: { listTemplateId: 5 } }),
      400,
      "ValidationError",
    );
    expectError(await call("GET", "/document/missing/settings", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/document/${t.docId}/settings`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("PUT", `/document/${t.docId}/settings`, { token: t.viewer.token, body: { listTemplateId: "x" } }),
      403,
      "ForbiddenError",
    );
  });
});

describe("OpenAPI", () => {
  it("documents the content, DOCX, media and snapshot routes with raw-bytes bodies", async () => {
    const doc = await ok("GET", "/openapi.json");
    const paths = doc.paths;
    for (const p of [
      "/document/{documentId}/content",
      "/document/{documentId}/settings",
      "/document/docx",
      "/document/docx/{documentId}",
      "/document/docx/{documentId}/export",
      "/document/docx/{documentId}/mark-seeded",
      "/media/audio",
      "/media/audio/{audioId}",
      "/media/audio/{audioId}/content",
      "/snapshot",
      "/snapshot/all/{documentId}",
      "/snapshot/{snapshotId}",
      "/snapshot/{snapshotId}/restore",
    ]) {
      expect(paths[p], p).toBeDefined();
    }
    expect(paths["/media/audio"].post.requestBody.content["application/octet-stream"].schema).toMatchObject({
      type: "string",
      format: "binary",
    });
    expect(paths["/media/audio"].post.parameters.map((p: any) => p.name).sort()).toEqual([
      "Idempotency-Key",
      "documentId",
      "fileName",
      "mimeType",
      "workspaceId",
    ]);
    expect(paths["/document/docx"].post.requestBody.content[DOCX]).toBeDefined();
    expect(paths["/document/docx/{documentId}/export"].get.responses["200"].content[DOCX].schema).toMatchObject({
      format: "binary",
    });
    expect(paths["/media/audio/{audioId}/content"].get.security).toEqual([]);
    expect(paths["/snapshot/{snapshotId}"].put.summary).toMatch(/^E8/);
  });
});

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
