/**
 * Nesting and work bounds of Markdown import and export (docs/api-guide.md › Limits, › Markdown import and export;
 * docs/security-review.md, issue 34 finding 2): input nested past the bound is refused with 422 naming its line
 * before the parser runs, and content stored deeper than the bound (written before it existed) still exports.
 */
import { env } from "cloudflare:test";
import { strFromU8, unzipSync } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

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

  it("a 1,000-deep list (1 MB of Markdown, within the byte bound) is 422 and creates nothing", async () => {
    const name = `Deep ${crypto.randomUUID()}`;
    expectError(await importMd(nestedList(1000), name), 422, "UnprocessableEntityError");
    const listed = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data.filter(
      (d: any) => d.name === name,
    );
    expect(listed).toEqual([]);
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
