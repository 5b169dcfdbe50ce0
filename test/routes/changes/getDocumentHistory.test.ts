/** GET /document/{documentId}/history and the document entries of the change log (docs/api-guide.md › Changes, history and audit). */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { importMarkdown } from "../../support/markdown";
import { connect, para } from "../../support/collab-peer";
import { blocksOf, room, until } from "../../support/collabRoom";
import { newDocxIn } from "../../support/docx";
import { docxBytes } from "../../support/content-fixtures";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const newDoc = async (name: string, parentId?: string, type = "DOCUMENT") =>
  (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, parentId, name, type } })).data
    ._id as string;
const history = async (id: string, token = t.owner.token) =>
  (await ok("GET", `/document/${id}/history?limit=100`, { token })).data as any[];
const kinds = (entries: any[]) => entries.map((e) => e.kind);
const blocks = (text: string) => [{ type: "paragraph", content: [{ type: "text", text, styles: {} }] }];

describe("document entries", () => {
  it("a PATCH records the fields it changes, once; a PATCH that changes nothing records nothing", async () => {
    const id = await newDoc("Before");
    await ok("PATCH", `/document/${id}`, {
      token: t.editor.token,
      body: { name: "After", description: "d", icon: { name: "star", color: "red" } },
    });
    await ok("PATCH", `/document/${id}`, { token: t.editor.token, body: { name: "After", description: "d" } });
    const entries = await history(id);
    expect(kinds(entries)).toEqual(["document.updated", "document.created"]);
    expect(entries[0].changes).toMatchObject({
      name: { before: "Before", after: "After" },
      description: { before: "", after: "d" },
    });
    expect(entries[0].changes.icon).toEqual({ before: null, after: { name: "star", color: "red" } });
    expect(Object.keys(entries[0].changes).sort()).toEqual(["description", "icon", "name"]);
    expect(entries[0].actor).toMatchObject({ type: "user", userId: t.editor.id });
    expect(entries[0].source).toBe("api");
    expect(entries[0]).toMatchObject({ workspaceId: t.workspaceId, projectId: t.projectId, recordId: id });
  });

  it("a settings write records document.updated with the settings it changes; the same settings again record nothing", async () => {
    const id = await newDoc("Settings");
    await ok("PUT", `/document/${id}/settings`, { token: t.editor.token, body: { listTemplateId: "tpl-1" } });
    await ok("PUT", `/document/${id}/settings`, {
      token: t.editor.token,
      body: { listTemplateId: "tpl-1", importedTermId: "" },
    });
    await ok("PUT", `/document/${id}/settings`, { token: t.editor.token, body: { importedTermId: "term-9" } });
    const entries = await history(id);
    expect(entries.map((e) => [e.kind, e.changes])).toEqual([
      ["document.updated", { importedTermId: { before: "", after: "term-9" } }],
      ["document.updated", { listTemplateId: { before: "", after: "tpl-1" } }],
      ["document.created", expect.anything()],
    ]);
  });

  it("a move records document.moved with the parent before and after; a refused move records nothing", async () => {
    const folder = await newDoc("Target", undefined, "FOLDER");
    const id = await newDoc("Mover", t.folderId);
    await ok("PATCH", `/document/${id}`, { token: t.owner.token, body: { parentId: folder } });
    await ok("PATCH", `/document/${id}`, { token: t.owner.token, body: { parentId: null } });
    const gone = await newDoc("Gone", undefined, "FOLDER");
    await ok("DELETE", `/document/${gone}`, { token: t.owner.token });
    expectError(
      await call("PATCH", `/document/${id}`, { token: t.owner.token, body: { parentId: gone } }),
      404,
      "NotFoundError",
    );
    const entries = await history(id);
    expect(kinds(entries)).toEqual(["document.moved", "document.moved", "document.created"]);
    expect(entries[1].changes).toEqual({ parentId: { before: t.folderId, after: folder } });
    // To the project root: null after, kept as null.
    expect(entries[0].changes).toEqual({ parentId: { before: folder, after: null } });
  });

  it("If-Match that no longer matches is 412 and records nothing", async () => {
    const id = await newDoc("Guarded");
    const res = await call("PATCH", `/document/${id}`, {
      token: t.owner.token,
      headers: { "if-match": '"stale"' },
      body: { name: "Never" },
    });
    expect(res.status).toBe(412);
    expect(kinds(await history(id))).toEqual(["document.created"]);
  });

  it("deleting a folder records a tombstone for it and each live document below; restore the same; still readable", async () => {
    const folder = await newDoc("Doomed", undefined, "FOLDER");
    const child = await newDoc("Child", folder);
    const earlier = await newDoc("Deleted earlier", folder);
    await ok("DELETE", `/document/${earlier}`, { token: t.owner.token });
    await ok("DELETE", `/document/${folder}`, { token: t.owner.token });
    // Deleted: its history is still there for a reader of the project.
    expect(kinds(await history(child, t.viewer.token))).toEqual(["document.deleted", "document.created"]);
    expect(kinds(await history(earlier))).toEqual(["document.deleted", "document.created"]);
    await ok("POST", `/document/${folder}/restore`, { token: t.owner.token });
    const entries = await history(folder);
    expect(kinds(entries)).toEqual(["document.restored", "document.deleted", "document.created"]);
    expect(entries[0].changes).toBeUndefined();
    expect(kinds(await history(child))).toEqual(["document.restored", "document.deleted", "document.created"]);
    // The document deleted before its folder stays deleted: no restore entry.
    expect(kinds(await history(earlier))).toEqual(["document.deleted", "document.created"]);
  });

  it("each content version is one document.content with its version and size; a stale write records nothing", async () => {
    const id = await newDoc("Content");
    await ok("PUT", `/document/${id}/content`, { token: t.editor.token, body: { blocks: blocks("one") } });
    await ok("PUT", `/document/${id}/content`, {
      token: t.editor.token,
      body: { blocks: blocks("two"), baseVersion: 1 },
    });
    const stale = await call("PUT", `/document/${id}/content`, {
      token: t.editor.token,
      body: { blocks: blocks("three"), baseVersion: 1 },
    });
    expect(stale.status).toBe(409);
    const entries = await history(id);
    expect(kinds(entries)).toEqual(["document.content", "document.content", "document.created"]);
    expect(entries[0].changes.content.before).toEqual({ version: 1 });
    expect(entries[0].changes.content.after).toMatchObject({ version: 2 });
    expect(entries[0].changes.content.after.size).toBe(JSON.stringify(blocks("two")).length);
    expect(entries[1].changes.content).toMatchObject({ before: null, after: { version: 1 } });
    expect(entries[0]).toMatchObject({ source: "api", actor: { type: "user", userId: t.editor.id } });
  });

  it("a snapshot restore records its content version with source restore", async () => {
    const id = await newDoc("Snap");
    await ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks: blocks("v1") } });
    const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: id, name: "v1" } });
    await ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks: blocks("v2") } });
    await ok("POST", `/snapshot/${snap.data._id}/restore`, { token: t.owner.token });
    const [latest] = await history(id);
    expect(latest).toMatchObject({ kind: "document.content", source: "restore", actor: { userId: t.owner.id } });
    expect(latest.changes.content).toMatchObject({ before: { version: 2 }, after: { version: 3 } });
  });

  it("a Markdown import records the document and its first version with source import", async () => {
    const res = await importMarkdown("# Hi\n\ntext\n", { projectId: t.projectId, name: "Imported" }, t.owner.token);
    expect(res.status).toBe(200);
    const entries = await history(res.body.data.document._id);
    expect(entries.map((e) => [e.kind, e.source])).toEqual([
      ["document.content", "import"],
      ["document.created", "import"],
    ]);
  });
});

describe("DOCX entries", () => {
  it("an uploaded DOCX document is created and its first version recorded with source import; a new version with api", async () => {
    const doc = await newDocxIn(t, "History.docx");
    const v2 = docxBytes("the second version");
    const put = await call("PUT", `/document/docx/${doc._id}`, {
      token: t.editor.token,
      raw: v2,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(put.status).toBe(200);
    const entries = await history(doc._id);
    expect(entries.map((e) => [e.kind, e.source])).toEqual([
      ["document.content", "api"],
      ["document.content", "import"],
      ["document.created", "import"],
    ]);
    expect(entries[0].changes.docx).toMatchObject({ before: { version: 1 }, after: { version: 2, size: v2.length } });
    expect(entries[1].changes.docx).toMatchObject({ before: null, after: { version: 1 } });
  });
});

describe("collaboration room entries", () => {
  it("the room's write-back is one document.content with source room, naming the editor; a PUT through it names the caller", async () => {
    const id = await newDoc("Room");
    const peer = await connect(id, { token: t.editor.token });
    peer.write([para("p1", "live edit")]);
    await until(
      () => blocksOf(id),
      (b) => b.length === 1,
      "the room to hold the edit",
    );
    await room(id).flush();
    await ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks: blocks("put") } });
    peer.close();
    const entries = await history(id);
    expect(entries.map((e) => [e.kind, e.source, e.actor.userId])).toEqual([
      ["document.content", "api", t.owner.id],
      ["document.content", "room", t.editor.id],
      ["document.created", "api", t.owner.id],
    ]);
    expect(entries[1].changes.content).toMatchObject({ before: null, after: { version: 1 } });
  });
});

describe("GET /document/{documentId}/history", () => {
  it("newest first, paged by cursor", async () => {
    const id = await newDoc("Paged");
    for (const name of ["a", "b", "c"]) await ok("PATCH", `/document/${id}`, { token: t.owner.token, body: { name } });
    const first = await ok("GET", `/document/${id}/history?limit=2`, { token: t.viewer.token });
    expect(first.data.map((e: any) => e.changes?.name?.after)).toEqual(["c", "b"]);
    const second = await ok("GET", `/document/${id}/history?limit=2&cursor=${first.nextCursor}`, {
      token: t.viewer.token,
    });
    expect(kinds(second.data)).toEqual(["document.updated", "document.created"]);
    expect(second.nextCursor).toBeNull();
  });

  it("no access looks like absence: 404 for an outsider and a missing document", async () => {
    expectError(await call("GET", `/document/${t.docId}/history`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", `/document/no-such-doc/history`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
