/** Documents as Markdown through the API (docs/api-guide.md › Markdown import and export). */
import { unzipSync, strFromU8 } from "fflate";
import { beforeAll, describe, expect, it } from "vitest";
import {
  addWorkspaceCollaborator,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  type Tenant,
} from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const SAMPLE = [
  "# Plan",
  "",
  "Some **bold** and a [link](https://example.com).",
  "",
  "- [ ] write",
  "- [x] test",
  "",
  "| A | B |",
  "| - | - |",
  "| 1 | 2 |",
  "",
  "![diagram](https://example.com/d.png)",
  "",
].join("\n");

function importMd(markdown: string, query: Record<string, string>, token = t.owner.token) {
  return call("POST", "/document/markdown", {
    token,
    raw: markdown,
    headers: { "content-type": "text/markdown" },
    query,
  });
}

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
    expectError(await call("GET", `/document/${t.folderId}/export.md`, { token: t.owner.token }), 409, "ConflictError");
    expectError(await call("GET", `/document/${t.docId}/export.md`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await importMd("# x", { projectId: t.projectId, name: "X" }, t.viewer.token), 403, "ForbiddenError");
    expectError(await importMd("# x", { projectId: t.projectId, name: "X" }, t.outsider.token), 404, "NotFoundError");
  });

  it("exports a folder as a ZIP of Markdown files in its tree (deleted documents left out), 404 to an outsider, 409 for a document", async () => {
    const token = t.owner.token;
    const root = await ok("POST", "/document", {
      token,
      body: { projectId: t.projectId, name: "Handbook", type: "FOLDER" },
    });
    const rootId = root.data._id;
    const sub = await ok("POST", "/document", {
      token,
      body: { projectId: t.projectId, parentId: rootId, name: "Team: ops", type: "FOLDER" },
    });
    await ok("POST", "/document", {
      token,
      body: { projectId: t.projectId, parentId: rootId, name: "Empty", type: "FOLDER" },
    });
    await importMd("# Welcome\n", { projectId: t.projectId, parentId: rootId, name: "Intro" });
    await importMd("Second intro\n", { projectId: t.projectId, parentId: rootId, name: "intro" });
    await importMd("- on call\n", { projectId: t.projectId, parentId: sub.data._id, name: "Rota" });
    const gone = await importMd("deleted\n", { projectId: t.projectId, parentId: rootId, name: "Gone" });
    await ok("DELETE", `/document/${gone.body.data.document._id}`, { token });

    const res = await call("GET", `/document/${rootId}/export.zip`, { token: t.viewer.token });
    expect(res.status, text(res.body)).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    expect(res.headers.get("content-disposition")).toMatch(/filename="Handbook.zip"/);
    const files = unzipSync(new Uint8Array(res.body as ArrayBuffer));
    expect(Object.keys(files).sort()).toEqual([
      "Empty/",
      "Intro.md",
      "Team_ ops/",
      "Team_ ops/Rota.md",
      "intro (2).md",
    ]);
    expect(strFromU8(files["Intro.md"]!)).toBe("# Welcome\n");
    expect(strFromU8(files["intro (2).md"]!)).toBe("Second intro\n");
    expect(strFromU8(files["Team_ ops/Rota.md"]!)).toBe("- on call\n");

    expectError(await call("GET", `/document/${rootId}/export.zip`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", `/document/${t.docId}/export.zip`, { token }), 409, "ConflictError");
  });

  it("a collaborator of another workspace role sees the same folder export as the owner", async () => {
    const editor = await registerUser("Md editor");
    await addWorkspaceCollaborator(t.owner, t.workspaceId, editor, "editor");
    const res = await call("GET", `/document/${t.folderId}/export.zip`, { token: editor.token });
    expect(res.status).toBe(200);
    const names = Object.keys(unzipSync(new Uint8Array(res.body as ArrayBuffer))).sort();
    expect(names).toContain("Doc 1.md");
    expect(names).toContain("Doc 2.md");
  });
});
