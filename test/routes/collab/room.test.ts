/**
 * The collaborative room (docs/api-guide.md › Automations, published portals, collaborative editing) with real Yjs clients over the pool's WebSockets: convergence, viewers refused,
 * access removal, eviction and reload, compaction, the state cap, malformed messages, tickets, and one document
 * everywhere (content GET, E5, PUT content and snapshot restore through the room).
 */
import { env, evictDurableObject, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, expectError, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { connect, openSocket, para, Peer } from "../../support/collab-peer";
import { EVERY_BLOCK } from "../../support/collab-fixtures";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import type { DocumentRoom } from "../../../src/durable/DocumentRoom";
import { COMPACT_EVERY } from "../../../src/durable/room/persistence";
import type { Block } from "../../../src/services/collab/blocks";
import * as encoding from "lib0/encoding";
import * as syncProtocol from "y-protocols/sync";

const room = (documentId: string) => env.DOCUMENT_ROOM.get(env.DOCUMENT_ROOM.idFromName(documentId));
/** The blocks the room holds, through its diagnostics surface. */
const blocksOf = async (documentId: string) =>
  JSON.parse((await room(documentId).diagnostics({ blocks: true })).blocksJson!) as Block[];
/** The room's storage and connection figures. */
const statsOf = async (stub: ReturnType<typeof room>) => (await stub.diagnostics()).stats;

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

async function newDoc(name = "Collab doc") {
  const doc = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
  });
  return doc.data._id as string;
}

async function until<T>(probe: () => Promise<T>, check: (v: T) => boolean, what: string, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (check(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v));

describe("collaborative room", () => {
  it("two editors converge, and the room holds the same document", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.owner.token });
    const b = await connect(docId, { token: t.editor.token });
    a.write([para("p1", "hello"), para("p2", "second")]);
    await b.until(() => b.blocks().length === 2, "b to receive a's blocks");
    // Concurrent edits on both sides.
    a.text(0).insert(5, " world");
    b.text(1).insert(0, "the ", { bold: {} });
    const expected = [
      para("p1", "hello world"),
      {
        ...para("p2", ""),
        content: [
          { type: "text", text: "the ", styles: { bold: true } },
          { type: "text", text: "second", styles: {} },
        ],
      },
    ];
    await a.until(() => JSON.stringify(a.blocks()) === JSON.stringify(expected), "a to converge");
    await b.until(() => JSON.stringify(b.blocks()) === JSON.stringify(expected), "b to converge");
    expect(json(await blocksOf(docId))).toEqual(expected);
    a.close();
    b.close();
  });

  it("refuses a viewer's update with a message to them, applies nothing, and still sends them updates", async () => {
    const docId = await newDoc();
    const editor = await connect(docId, { token: t.editor.token });
    const viewer = await connect(docId, { token: t.viewer.token });
    editor.write([para("p1", "from the editor")]);
    await viewer.until(() => viewer.blocks().length === 1, "viewer to receive the editor's block");
    viewer.text(0).insert(0, "VANDAL ");
    await viewer.until(() => viewer.denied.length > 0, "a permission-denied message");
    expect(viewer.denied[0]).toMatch(/read-only/);
    expect(viewer.closed).toBeNull();
    // The editor keeps writing; the viewer still receives it, and neither room nor editor ever holds the viewer's text.
    editor.text(0).insert(0, ">> ");
    await viewer.until(
      () => viewer.blocks()[0]!.content!.toString().length > 0 && JSON.stringify(viewer.blocks()).includes(">> "),
      "viewer to receive the next edit",
    );
    expect(JSON.stringify(await blocksOf(docId))).not.toContain("VANDAL");
    expect(JSON.stringify(editor.blocks())).not.toContain("VANDAL");
    expect(json(await blocksOf(docId))).toEqual([para("p1", ">> from the editor")]);
    editor.close();
    viewer.close();
  });

  it("drops a collaborator whose access was removed, and re-checks a changed role", async () => {
    const t2 = await seedTenant();
    const editorSocket = await connect(t2.docId, { token: t2.editor.token });
    const viewerSocket = await connect(t2.docId, { token: t2.viewer.token });
    // The viewer becomes editor: their next edit is applied without reconnecting.
    await ok("POST", `/workspace/${t2.workspaceId}/collaborator`, {
      token: t2.owner.token,
      body: { email: t2.viewer.email, role: "editor" },
    });
    viewerSocket.write([para("v1", "now an editor")]);
    await editorSocket.until(() => editorSocket.blocks().length === 1, "the promoted viewer's edit to arrive");
    expect(viewerSocket.denied).toEqual([]);
    // The editor is removed from the workspace: their socket is closed at once.
    await ok("DELETE", `/workspace/${t2.workspaceId}/collaborator/${t2.editor.id}`, { token: t2.owner.token });
    await editorSocket.until(() => editorSocket.closed !== null, "the removed editor to be disconnected");
    expect(editorSocket.closed!.code).toBe(4403);
    expect(viewerSocket.closed).toBeNull();
    // And they cannot come back.
    const again = await openSocket(t2.docId, { token: t2.editor.token });
    expect(again.status).toBe(404);
    viewerSocket.close();
  });

  it("disconnects everyone from a document when it, or a folder above it, is deleted; restored, it opens again", async () => {
    const folder = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Doomed folder", type: "FOLDER" },
    });
    const inside = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: folder.data._id, name: "Inside", type: "DOCUMENT" },
    });
    const docId = inside.data._id as string;
    const owner = await connect(docId, { token: t.owner.token });
    const editor = await connect(docId, { token: t.editor.token });
    owner.write([para("d1", "before the delete")]);
    await editor.until(() => editor.blocks().length === 1, "the editor to receive the block");
    const other = await connect(t.docId, { token: t.editor.token });
    await ok("DELETE", `/document/${folder.data._id}`, { token: t.owner.token });
    await owner.until(() => owner.closed !== null, "the owner to be disconnected");
    await editor.until(() => editor.closed !== null, "the editor to be disconnected");
    expect(owner.closed!.code).toBe(4403);
    expect(editor.closed!.code).toBe(4403);
    // A room outside the deleted subtree is untouched.
    expect(other.closed).toBeNull();
    expect((await openSocket(docId, { token: t.owner.token })).status).toBe(404);
    await ok("POST", `/document/${folder.data._id}/restore`, { token: t.owner.token });
    const back = await connect(docId, { token: t.editor.token });
    await back.until(
      () => JSON.stringify(back.blocks()).includes("before the delete"),
      "the restored document's state",
    );
    back.close();
    other.close();
  });

  it("drops a guest whose access came from a folder the document is moved out of", async () => {
    const folder = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Shared folder", type: "FOLDER" },
    });
    const guest = await registerUser("Folder guest");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: folder.data._id, role: "editor" },
    });
    // Created after the invitation: the guest reads it only as a collaborator of the folder above it.
    const inside = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: folder.data._id, name: "Moved", type: "DOCUMENT" },
    });
    const docId = inside.data._id as string;
    const owner = await connect(docId, { token: t.owner.token });
    const g = await connect(docId, { token: guest.token });
    await ok("PATCH", `/document/${docId}`, { token: t.owner.token, body: { parentId: null } });
    await g.until(() => g.closed !== null, "the guest to be disconnected after the move");
    expect(g.closed!.code).toBe(4403);
    expect(owner.closed).toBeNull();
    expect((await openSocket(docId, { token: guest.token })).status).toBe(404);
    owner.close();
  });

  it("lets a document viewer edit at once when an invitation raises them to editor", async () => {
    const docId = await newDoc();
    const guest = await registerUser("Guest");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: docId, role: "viewer" },
    });
    const owner = await connect(docId, { token: t.owner.token });
    const g = await connect(docId, { token: guest.token });
    owner.write([para("p1", "shared")]);
    await g.until(() => g.blocks().length === 1, "the guest to receive the block");
    await ok("POST", "/document/invite-user", {
      token: t.owner.token,
      body: { email: guest.email, documentId: docId, role: "editor" },
    });
    g.text(0).insert(g.text(0).length, " +guest");
    await owner.until(
      () => JSON.stringify(owner.blocks()).includes("shared +guest"),
      "the promoted guest's edit to arrive",
    );
    expect(g.denied).toEqual([]);
    owner.close();
    g.close();
  });

  it("reloads exactly what was acknowledged after the room is evicted", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.owner.token });
    const b = await connect(docId, { token: t.editor.token });
    a.write([para("p1", "start:")]);
    for (let i = 0; i < 50; i++) a.text(0).insert(a.text(0).length, `${i},`);
    await b.until(() => JSON.stringify(b.blocks()) === JSON.stringify(a.blocks()), "b to receive every keystroke");
    const expected = json(a.blocks());
    const stub = room(docId);
    const before = await statsOf(stub);
    expect(before.updateCount).toBeGreaterThanOrEqual(51);
    await evictDurableObject(stub);
    // A fresh instance loaded from storage only.
    expect(json(await blocksOf(docId))).toEqual(expected);
    // Hibernated sockets survive the eviction and keep working.
    b.text(0).insert(0, "after:");
    await a.until(() => JSON.stringify(a.blocks()).includes("after:"), "a to receive b's edit after the eviction");
    await evictDurableObject(stub, { webSockets: "close" });
    const c = await connect(docId, { token: t.owner.token });
    expect(json(c.blocks())).toEqual(json(a.blocks()));
    // Storage holds the state and updates, nothing else.
    const rows = await runInDurableObject(stub, (_instance: DocumentRoom, state) => ({
      updates: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM updates").one().n,
      chunks: state.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM state_chunks").one().n,
    }));
    expect(rows.updates + rows.chunks).toBeGreaterThan(0);
    a.close();
    b.close();
    c.close();
  });

  it("compacts every N updates (2000 by default) and when the last socket leaves, into chunks that reload to the same state", async () => {
    expect(COMPACT_EVERY).toBe(2000);
    const docId = await newDoc();
    const stub = room(docId);
    const a = await connect(docId, { token: t.owner.token });
    // The interval is lowered so the test sends 125 updates instead of 2 100 (and stays within a socket's message
    // burst); the code path is the same.
    await stub.diagnostics({ limits: { compactEvery: 50 } });
    a.write([para("p1", "start:")]);
    for (let i = 0; i < 125; i++) a.text(0).insert(a.text(0).length, "x");
    await until(
      () => blocksOf(docId),
      (blocks) => JSON.stringify(blocks).includes("x".repeat(125)),
      "all 125 keystrokes to arrive",
      20_000,
    );
    const mid = await statsOf(stub);
    expect(mid.stateChunks).toBeGreaterThanOrEqual(1);
    expect(mid.updateCount).toBeLessThan(50);
    a.close();
    await until(
      () => statsOf(stub),
      (s) => s.updateCount === 0 && s.connections === 0,
      "compaction after the last socket left",
    );
    const reload = (await stub.diagnostics({ reload: true })).reload!;
    expect(reload.matches).toBe(true);
    await evictDurableObject(stub);
    expect(JSON.stringify(await blocksOf(docId))).toContain("start:" + "x".repeat(125));
    await stub.diagnostics({ limits: { compactEvery: null } });
  });

  it("the operator route (POST /admin/collab/{id}) lowers the interval, compacts and reports a reload that matches", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.owner.token });
    a.write([para("p1", "start:")]);
    for (let i = 0; i < 20; i++) a.text(0).insert(a.text(0).length, "x");
    await until(
      () => blocksOf(docId),
      (blocks) => JSON.stringify(blocks).includes("x".repeat(20)),
      "the keystrokes to arrive",
    );
    const before = await ok("POST", `/admin/collab/${docId}`, { token: ADMIN_TOKEN, body: { compactEvery: 1000 } });
    expect(before.data.stats).toMatchObject({ documentId: docId, connections: 1 });
    expect(before.data.stats.updateCount).toBeGreaterThanOrEqual(21);
    expect(before.data.reloadMatches).toBe(true);
    const after = await ok("POST", `/admin/collab/${docId}`, {
      token: ADMIN_TOKEN,
      body: { compact: true, compactEvery: null },
    });
    expect(after.data.stats).toMatchObject({ updateCount: 0, stateChunks: 1 });
    expect(after.data.stats.storedBytes).toBe(after.data.stats.stateBytes);
    expect(after.data.reloadMatches).toBe(true);
    expect(typeof after.data.reloadMs).toBe("number");
    a.close();
  });

  it("stores a large state in chunks under 2 MB that reload to the same document", async () => {
    const docId = await newDoc();
    const stub = room(docId);
    const a = await connect(docId, { token: t.owner.token });
    // ~3 MB of incompressible text in one update, then compaction.
    const big = Array.from({ length: (3 * 1024 * 1024) / 16 }, () =>
      Math.random().toString(36).slice(2, 18).padEnd(16, "z"),
    ).join("");
    a.write([para("big", big)]);
    await until(
      () => statsOf(stub),
      (s) => s.storedBytes > 3 * 1024 * 1024,
      "the large update to be stored",
      20_000,
    );
    const after = (await stub.diagnostics({ compact: true })).stats;
    expect(after.stateChunks).toBeGreaterThanOrEqual(2);
    const sizes = await runInDurableObject(stub, (_i: DocumentRoom, state) =>
      state.storage.sql
        .exec<{ size: number }>("SELECT length(data) AS size FROM state_chunks")
        .toArray()
        .map((r) => r.size),
    );
    expect(Math.max(...sizes)).toBeLessThan(2 * 1000 * 1000);
    await evictDurableObject(stub, { webSockets: "close" });
    expect((await blocksOf(docId))[0]!.content).toEqual([{ type: "text", text: big, styles: {} }]);
  });

  it("closes only the socket that sent an unparseable message, with 1003", async () => {
    const docId = await newDoc();
    const good = await connect(docId, { token: t.owner.token });
    const bad = await connect(docId, { token: t.editor.token });
    bad.send(new Uint8Array([0, 2, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3]));
    await bad.until(() => bad.closed !== null, "the bad socket to close");
    expect(bad.closed!.code).toBe(1003);
    const text = await connect(docId, { token: t.editor.token });
    text.ws.send("not binary");
    await text.until(() => text.closed !== null, "the text-frame socket to close");
    expect(text.closed!.code).toBe(1003);
    // The room and the other socket are unaffected.
    good.write([para("p1", "still fine")]);
    const later = await connect(docId, { token: t.editor.token });
    expect(json(later.blocks())).toEqual([para("p1", "still fine")]);
    expect(good.closed).toBeNull();
    good.close();
    later.close();
  });

  it("closes with 1003 a socket whose update decodes but cannot be applied; the room and the others carry on", async () => {
    const docId = await newDoc();
    const good = await connect(docId, { token: t.owner.token });
    const bad = await connect(docId, { token: t.editor.token });
    // A Yjs update that Y.decodeUpdate reads but Y.applyUpdate throws on (found by mutating a valid update).
    const update = Uint8Array.from(
      "0106010007010e646f63756d656e742d73746f7265030970617261677261706807000164060600010104626f6c64027b7d8401020b68656c6c6f20776f726c6486010d04626f6c64046e756c6c2801016d016b017d0100"
        .match(/../g)!
        .map((h) => parseInt(h, 16)),
    );
    const e = encoding.createEncoder();
    encoding.writeVarUint(e, 0);
    syncProtocol.writeUpdate(e, update);
    bad.send(encoding.toUint8Array(e));
    await bad.until(() => bad.closed !== null, "the socket to be closed");
    expect(bad.closed!.code).toBe(1003);
    good.write([para("p1", "still editing")]);
    const later = await connect(docId, { token: t.editor.token });
    expect(json(later.blocks())).toEqual([para("p1", "still editing")]);
    expect(good.closed).toBeNull();
    good.close();
    later.close();
  });

  it("refuses an update that would take the document past its size limit, with a clear reason", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.owner.token });
    a.write([para("p1", "small")]);
    const stub = room(docId);
    await until(
      () => blocksOf(docId),
      (b) => b.length === 1,
      "the first block",
    );
    await stub.diagnostics({ limits: { maxStateBytes: 4096 } });
    a.text(0).insert(0, "y".repeat(10_000));
    await a.until(() => a.closed !== null, "the oversized update to be refused");
    expect(a.closed!.code).toBe(1009);
    expect(a.closed!.reason).toMatch(/exceed/);
    expect(json(await blocksOf(docId))).toEqual([para("p1", "small")]);
    await stub.diagnostics({ limits: { maxStateBytes: null } });
  });

  it("starts from the document's content and writes edits back, so content GET and E5 see them within 3 s", async () => {
    const docId = await newDoc();
    await ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks: EVERY_BLOCK } });
    const a = await connect(docId, { token: t.editor.token });
    expect(json(a.blocks())).toEqual(json(EVERY_BLOCK));
    const started = Date.now();
    a.text(1).insert(5, " edited live");
    const content = await until(
      () => ok("GET", `/document/${docId}/content`, { token: t.owner.token }),
      (body) => JSON.stringify(body.data.blocks).includes("Title edited live"),
      "content GET to show the edit",
      3000,
    );
    expect(Date.now() - started).toBeLessThanOrEqual(3000);
    expect(content.data.blocks[1].content[0].text).toBe("Title edited live");
    const e5 = await ok("POST", "/export/get-documents-data", {
      token: t.owner.token,
      body: { documentIds: [docId], projectId: t.projectId },
    });
    expect(JSON.stringify(e5)).toContain("Title edited live");
    a.close();
  });

  it("applies PUT content to a live room as one transaction connected editors receive", async () => {
    const docId = await newDoc();
    const a = await connect(docId, { token: t.editor.token });
    a.write([para("p1", "typed live")]);
    await until(
      () => blocksOf(docId),
      (b) => b.length === 1,
      "the live block",
    );
    const current = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
    // A stale baseVersion is 409 and changes nothing (the live edits were flushed first, so the version moved).
    const stale = await call("PUT", `/document/${docId}/content`, {
      token: t.owner.token,
      body: { blocks: [para("x", "stale")], baseVersion: 0 },
    });
    expectError(stale, 409, "ConflictError");
    void current;
    const replaced = [para("r1", "replaced by PUT"), para("r2", "second")];
    const put = await ok("PUT", `/document/${docId}/content`, { token: t.owner.token, body: { blocks: replaced } });
    expect(put.data.version).toBeGreaterThan(0);
    await a.until(() => JSON.stringify(a.blocks()) === JSON.stringify(replaced), "the editor to receive the PUT");
    const read = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
    expect(read.data).toMatchObject({ version: put.data.version, blocks: replaced });
    a.close();
  });

  it("restores a snapshot into the live room, and keeps the live edits in 'Before restore'", async () => {
    const docId = await newDoc();
    await ok("PUT", `/document/${docId}/content`, {
      token: t.owner.token,
      body: { blocks: [para("s1", "snapshotted")] },
    });
    const snap = await ok("POST", "/snapshot", { token: t.owner.token, body: { documentId: docId, name: "v1" } });
    const a = await connect(docId, { token: t.editor.token });
    a.text(0).insert(0, "changed: ");
    await until(
      () => blocksOf(docId),
      (b) => JSON.stringify(b).includes("changed: "),
      "the live edit",
    );
    const restored = await ok("POST", `/snapshot/${snap.data._id}/restore`, { token: t.owner.token });
    await a.until(
      () => JSON.stringify(a.blocks()) === JSON.stringify([para("s1", "snapshotted")]),
      "the editor to receive the restore",
    );
    const before = await ok("GET", `/snapshot/${restored.data.beforeRestoreSnapshotId}`, { token: t.owner.token });
    expect(before.data.blocks).toEqual([para("s1", "changed: snapshotted")]);
    const read = await ok("GET", `/document/${docId}/content`, { token: t.owner.token });
    expect(read.data.blocks).toEqual([para("s1", "snapshotted")]);
    a.close();
  });

  it("connects with a single-use ticket; a used, foreign or missing ticket is 401", async () => {
    const docId = await newDoc();
    const issued = await ok("POST", `/document/${docId}/collab/ticket`, { token: t.viewer.token });
    expect(issued.data.expiresAt - Date.now()).toBeLessThanOrEqual(60_000);
    expect(issued.data.expiresAt - Date.now()).toBeGreaterThan(50_000);
    // Concurrent redemptions: exactly one connects.
    const [r1, r2] = await Promise.all([
      openSocket(docId, { ticket: issued.data.ticket }),
      openSocket(docId, { ticket: issued.data.ticket }),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([101, 401]);
    const sock = new Peer((r1.webSocket ?? r2.webSocket)!);
    await sock.whenSynced();
    // The ticket's user is a viewer: read-only.
    sock.write([para("v", "nope")]);
    await sock.until(() => sock.denied.length > 0, "the viewer's refusal");
    sock.close();
    const reused = await openSocket(docId, { ticket: issued.data.ticket });
    expect(reused.status).toBe(401);
    const other = await newDoc("Other");
    const foreign = await ok("POST", `/document/${other}/collab/ticket`, { token: t.owner.token });
    expect((await openSocket(docId, { ticket: foreign.data.ticket })).status).toBe(401);
    expect((await openSocket(docId, {})).status).toBe(401);
  });

  it("answers a plain GET with 400 and the standard error body, and hides documents the caller cannot read", async () => {
    const docId = await newDoc();
    expectError(await call("GET", `/document/${docId}/collab`, { token: t.owner.token }), 400, "ValidationError");
    expect((await openSocket(docId, { token: t.outsider.token })).status).toBe(404);
    expect((await openSocket("no-such-document", { token: t.owner.token })).status).toBe(404);
  });
});

/** A DOCX document (a fresh fixture DOCX) in the tenant's folder, owned by its owner. */
async function newDocxDocument(name: string): Promise<string> {
  const created = await ok("POST", "/document/docx", {
    token: t.owner.token,
    raw: docxBytes(),
    query: { projectId: t.projectId, name, parentId: t.folderId },
    headers: { "content-type": DOCX_TYPE },
  });
  return created.data._id as string;
}

describe("E18 and the room", () => {
  it("a DOCX document's room starts empty until seeded; after mark-seeded later opens load the room's state; a new DOCX version starts over", async () => {
    const docId = await newDocxDocument("Seeded");
    const a = await connect(docId, { token: t.owner.token });
    expect(a.blocks()).toEqual([]);
    // The client converts the DOCX and seeds the room, then marks it seeded.
    a.write([para("d1", "converted from DOCX")]);
    await until(
      () => blocksOf(docId),
      (b) => b.length === 1,
      "the seed to arrive",
    );
    await ok("POST", `/document/docx/${docId}/mark-seeded`, { token: t.owner.token });
    a.close();
    await until(
      () => statsOf(room(docId)),
      (s) => s.connections === 0,
      "the room to empty",
    );
    await evictDurableObject(room(docId));
    const b = await connect(docId, { token: t.editor.token });
    expect(json(b.blocks())).toEqual([para("d1", "converted from DOCX")]);
    b.close();
    await until(
      () => statsOf(room(docId)),
      (s) => s.connections === 0,
      "the room to empty again",
    );
    // A new DOCX version clears seededAt: the next open starts empty, to be seeded from the new file.
    await ok("PUT", `/document/docx/${docId}`, {
      token: t.owner.token,
      raw: docxBytes(),
      headers: { "content-type": DOCX_TYPE },
    });
    const c = await connect(docId, { token: t.owner.token });
    expect(c.blocks()).toEqual([]);
    c.close();
  });

  it("a new DOCX version starts over even when no one opened the room between mark-seeded and the new version", async () => {
    const docId = await newDocxDocument("Seeded once");
    const a = await connect(docId, { token: t.owner.token });
    a.write([para("d1", "converted from the first DOCX")]);
    await until(
      () => blocksOf(docId),
      (b) => b.length === 1,
      "the seed to arrive",
    );
    // Marked while the seeding client is still connected (what a client does right after seeding).
    await ok("POST", `/document/docx/${docId}/mark-seeded`, { token: t.owner.token });
    a.close();
    await until(
      () => statsOf(room(docId)),
      (s) => s.connections === 0,
      "the room to empty",
    );
    await ok("PUT", `/document/docx/${docId}`, {
      token: t.owner.token,
      raw: docxBytes(),
      headers: { "content-type": DOCX_TYPE },
    });
    const b = await connect(docId, { token: t.owner.token });
    expect(b.blocks()).toEqual([]);
    b.close();
  });
});
