/** exportFolderMarkdownZip: GET /document/{documentId}/export.zip (src/routes/markdown/export.ts) — its happy path, errors and request-path checks. */
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
import { importMarkdown } from "../../support/markdown";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const importMd = (markdown: string, query: Record<string, string>, token = t.owner.token) =>
  importMarkdown(markdown, query, token);

const text = (body: unknown) => (body instanceof ArrayBuffer ? new TextDecoder().decode(body) : "");

describe("Markdown documents", () => {
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
