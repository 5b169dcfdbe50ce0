/** importMarkdownDocument: POST /document/markdown (src/routes/markdown/import.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
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
    it("a keyed import answers its retry with the same answer and creates one document; into a deleted folder it creates nothing", async () => {
      const key = `md-${crypto.randomUUID()}`;
      const send = () =>
        call("POST", "/document/markdown", {
          token: t.owner.token,
          raw: SAMPLE,
          headers: { "content-type": "text/markdown", "idempotency-key": key },
          query: { projectId: t.projectId, name: "Keyed plan" },
        });
      const first = await send();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.data).toMatchObject({ document: { name: "Keyed plan" }, version: 1, blocks: 6 });
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const listed = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data.filter(
        (d: any) => d.name === "Keyed plan",
      );
      expect(listed).toHaveLength(1);
      // Its text is searchable at once: the search body is written in the import's batch.
      const byBody = await ok("GET", "/search", { token: t.owner.token, query: { q: "bold" } });
      expect(byBody.data.map((h: any) => h._id)).toContain(first.body.data.document._id);

      const folder = (
        await ok("POST", "/document", {
          token: t.owner.token,
          body: { projectId: t.projectId, name: "Gone", type: "FOLDER" },
        })
      ).data;
      await ok("DELETE", `/document/${folder._id}`, { token: t.owner.token });
      expectError(
        await importMd(SAMPLE, { projectId: t.projectId, parentId: folder._id, name: "Orphan" }),
        404,
        "NotFoundError",
      );
      const hits = await ok("GET", "/search", { token: t.owner.token, query: { q: "Orphan" } });
      expect(hits.data).toEqual([]);
    });

    it("accepts a multipart upload, and refuses what is not Markdown text", async () => {
      const form = new FormData();
      form.set("file", new File(["## From a form\n"], "notes.md", { type: "text/markdown" }));
      const res = await call("POST", "/document/markdown", {
        token: t.owner.token,
        raw: form as unknown as BodyInit,
        query: { projectId: t.projectId, name: "Form" },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(
        text((await call("GET", `/document/${res.body.data.document._id}/export.md`, { token: t.owner.token })).body),
      ).toBe("## From a form\n");
      const png = await call("POST", "/document/markdown", {
        token: t.owner.token,
        raw: "x",
        headers: { "content-type": "image/png" },
        query: { projectId: t.projectId, name: "X" },
      });
      expectError(png, 415, "UnsupportedMediaTypeError");
      const notUtf8 = await call("POST", "/document/markdown", {
        token: t.owner.token,
        raw: new Uint8Array([0xff, 0xfe, 0x41]),
        headers: { "content-type": "text/markdown" },
        query: { projectId: t.projectId, name: "X" },
      });
      expectError(notUtf8, 415, "UnsupportedMediaTypeError");
      const big = await call("POST", "/document/markdown", {
        token: t.owner.token,
        raw: "x".repeat(5 * 1024 * 1024 + 1),
        headers: { "content-type": "text/markdown" },
        query: { projectId: t.projectId, name: "X" },
      });
      expectError(big, 413, "PayloadTooLargeError");
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

  /** A bullet list `depth` items deep, each item one line further in by two spaces. */
  const nestedList = (depth: number, indent = "  ") =>
    Array.from({ length: depth }, (_, i) => `${indent.repeat(i)}- item ${i + 1}`).join("\n") + "\n";

  async function refusedQuickly(markdown: string, line: number) {
    const started = Date.now();
    const res = await importMd(markdown);
    const ms = Date.now() - started;
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.details?.[0], JSON.stringify(res.body)).toMatchObject({ path: "body", line });
    expect(ms, `answered in ${ms} ms`).toBeLessThan(3000);
  }

  describe("Markdown nesting bound", () => {
    it("refuses a 30,000-deep one-line list, a 100,000-deep quote and a 1,000-deep indented list with 422 naming the line, in under 3 s", async () => {
      await refusedQuickly("- ".repeat(30000) + "x", 1);
      await refusedQuickly(">".repeat(100000) + " x", 1);
      // The pre-scan bound (64 containers) is passed on the 65th line; nothing after it is read.
      await refusedQuickly(nestedList(1000), 65);
    });

    it("a 2,000-deep indented list is 4 MB: over the 1 MiB byte bound, 413 at once", async () => {
      const started = Date.now();
      expectError(await importMd(nestedList(2000)), 413, "PayloadTooLargeError");
      expect(Date.now() - started).toBeLessThan(3000);
    });

    it("refuses more lines, markers and marks than the node budget, and stray closing brackets, naming the line", async () => {
      const lines = await importMd("- a\n".repeat(40000));
      expectError(lines, 422, "UnprocessableEntityError");
      expect(lines.body.details[0]).toMatchObject({ path: "body", line: 30001 });
      expect(lines.body.message).toMatch(/60000/);
      const stray = await importMd("intro\n\n" + "a] ".repeat(501));
      expectError(stray, 422, "UnprocessableEntityError");
      expect(stray.body.details[0]).toMatchObject({ path: "body", line: 3 });
    });

    it("refuses deeply nested emphasis, links and footnote definitions before parsing them", async () => {
      await refusedQuickly("*".repeat(5000) + "a" + "*".repeat(5000), 1);
      await refusedQuickly("*a _".repeat(5000) + "x" + "_ a*".repeat(5000), 1);
      await refusedQuickly("![".repeat(5000) + "a" + "](u)".repeat(5000), 1);
      await refusedQuickly("[^a]: ".repeat(5000) + "x", 1);
      await refusedQuickly("\n\ntext\n\n" + "> - 1. ".repeat(40) + "x", 5);
    });

    it("a 1,000-deep list (1 MB of Markdown, within the byte bound) is 422 and creates nothing", async () => {
      const name = `Deep ${crypto.randomUUID()}`;
      expectError(await importMd(nestedList(1000), name), 422, "UnprocessableEntityError");
      const listed = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data.filter(
        (d: any) => d.name === name,
      );
      expect(listed).toEqual([]);
    });
  });
});
