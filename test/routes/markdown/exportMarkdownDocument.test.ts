/** exportMarkdownDocument: GET /document/{documentId}/export.md (src/routes/markdown/export.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { env } from "cloudflare:test";
import { strFromU8, unzipSync } from "fflate";
import { SAMPLE_MARKDOWN, importMarkdown } from "../../support/markdown";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

/** Documents as Markdown through the API (docs/api-guide.md › Markdown import and export). */
describe("markdown-documents", () => {
  const SAMPLE = SAMPLE_MARKDOWN;

  const importMd = (markdown: string, query: Record<string, string>, token = t.owner.token) =>
    importMarkdown(markdown, query, token);

  const text = (body: unknown) => (body instanceof ArrayBuffer ? new TextDecoder().decode(body) : "");

  describe("Markdown documents", () => {
    it("imports a .md file as a new rich-text document and exports it back to the same Markdown", async () => {
      const res = await importMd(SAMPLE, { projectId: t.projectId, parentId: t.folderId, name: "Plan" });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const { document, version } = res.body.data;
      expect(document).toMatchObject({ name: "Plan", type: "DOCUMENT", parentId: t.folderId });
      expect(version).toBe(1);
      const content = await ok("GET", `/document/${document._id}/content`, { token: t.owner.token });
      expect(content.data.blocks.map((b: any) => b.type)).toEqual([
        "heading",
        "paragraph",
        "checkListItem",
        "checkListItem",
        "table",
        "image",
      ]);
      const out = await call("GET", `/document/${document._id}/export.md`, { token: t.viewer.token });
      expect(out.status).toBe(200);
      expect(out.headers.get("content-type")).toMatch(/^text\/markdown/);
      expect(out.headers.get("content-disposition")).toMatch(/filename="Plan.md"/);
      expect(text(out.body)).toBe(SAMPLE);
    });

    it("exports any stored rich text, and answers 409 for a folder and 404 for an outsider", async () => {
      await ok("PUT", `/document/${t.docId}/content`, {
        token: t.owner.token,
        body: {
          blocks: [
            {
              id: "a",
              type: "heading",
              props: { level: 2 },
              content: [{ type: "text", text: "Hi", styles: { bold: true } }],
              children: [],
            },
          ],
        },
      });
      expect(text((await call("GET", `/document/${t.docId}/export.md`, { token: t.owner.token })).body)).toBe(
        "## **Hi**\n",
      );
      expect(text((await call("GET", `/document/${t.doc2Id}/export.md`, { token: t.owner.token })).body)).toBe("");
      expectError(
        await call("GET", `/document/${t.folderId}/export.md`, { token: t.owner.token }),
        409,
        "ConflictError",
      );
      expectError(
        await call("GET", `/document/${t.docId}/export.md`, { token: t.outsider.token }),
        404,
        "NotFoundError",
      );
      expectError(await importMd("# x", { projectId: t.projectId, name: "X" }, t.viewer.token), 403, "ForbiddenError");
      expectError(await importMd("# x", { projectId: t.projectId, name: "X" }, t.outsider.token), 404, "NotFoundError");
    });
  });
});

/**
 * Nesting and work bounds of Markdown import and export (docs/api-guide.md › Limits, › Markdown import and export;
 * docs/security-review.md, issue 34 finding 2): input nested past the bound is refused with 422 naming its line
 * before the parser runs, and content stored deeper than the bound (written before it existed) still exports.
 */
describe("markdown-nesting", () => {
  function importMd(markdown: string, name = "Nested") {
    return call("POST", "/document/markdown", {
      token: t.owner.token,
      raw: markdown,
      headers: { "content-type": "text/markdown" },
      query: { projectId: t.projectId, name },
    });
  }

  const text = (body: unknown) => (body instanceof ArrayBuffer ? new TextDecoder().decode(body) : "");

  /** A bullet list `depth` items deep, each item one line further in by two spaces. */
  const nestedList = (depth: number, indent = "  ") =>
    Array.from({ length: depth }, (_, i) => `${indent.repeat(i)}- item ${i + 1}`).join("\n") + "\n";

  /** Blocks nested `depth` deep through `children`, the deepest one saying "deepest". */
  function deepBlocks(depth: number): unknown[] {
    let node: Record<string, unknown> = {
      id: `b${depth}`,
      type: "bulletListItem",
      props: {},
      content: [{ type: "text", text: "deepest", styles: {} }],
      children: [],
    };
    for (let d = depth - 1; d >= 1; d--)
      node = {
        id: `b${d}`,
        type: "bulletListItem",
        props: {},
        content: [{ type: "text", text: `level ${d}`, styles: {} }],
        children: [node],
      };
    return [node];
  }

  describe("Markdown nesting bound", () => {
    it("a list 32 items deep imports and exports back to the same Markdown; 33 deep is 422 naming the 33rd line", async () => {
      const md = nestedList(32);
      const res = await importMd(md, "At the bound");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const id = res.body.data.document._id as string;
      const out = await call("GET", `/document/${id}/export.md`, { token: t.owner.token });
      expect(out.status).toBe(200);
      expect(text(out.body)).toBe(md);

      const deeper = await importMd(nestedList(33), "Past the bound");
      expectError(deeper, 422, "UnprocessableEntityError");
      expect(deeper.body.details[0]).toMatchObject({ path: "body", line: 33 });
      expect(deeper.body.message).toMatch(/32/);
    });
  });

  describe("export of content stored past the bound", () => {
    it("a document whose stored blocks nest 1,000 deep (and links 1,000 deep) exports as Markdown and in a folder ZIP, not a 500", async () => {
      const folder = (
        await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: "Legacy", type: "FOLDER" },
        })
      ).data;
      const doc = (
        await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, parentId: folder._id, name: "Deep legacy", type: "DOCUMENT" },
        })
      ).data;
      await ok("PUT", `/document/${doc._id}/content`, { token: t.owner.token, body: { blocks: [] } });
      // Written straight into storage, as content written before the bound existed would be.
      let link: Record<string, unknown> = { type: "text", text: "inner", styles: {} };
      for (let i = 0; i < 1000; i++) link = { type: "link", href: "https://example.com/", content: [link] };
      const legacy = [...deepBlocks(1000), { id: "l", type: "paragraph", props: {}, content: [link], children: [] }];
      const [object] = (await env.BLOBS.list({ prefix: `content/${doc._id}/` })).objects;
      await env.BLOBS.put(object!.key, JSON.stringify(legacy));

      const out = await call("GET", `/document/${doc._id}/export.md`, { token: t.owner.token });
      expect(out.status, JSON.stringify(out.body)).toBe(200);
      const md = text(out.body);
      // Blocks past the bound are written at its last level, in reading order: no text is lost.
      expect(md).toContain("level 1");
      expect(md).toContain("level 40");
      expect(md).toContain("deepest");
      const zip = await call("GET", `/document/${folder._id}/export.zip`, { token: t.owner.token });
      expect(zip.status, JSON.stringify(zip.body)).toBe(200);
      const files = unzipSync(new Uint8Array(zip.body as ArrayBuffer));
      expect(strFromU8(files["Deep legacy.md"]!)).toBe(md);
    });
  });
});
