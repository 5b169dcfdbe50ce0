/** restoreSnapshot: POST /snapshot/{snapshotId}/restore (src/routes/snapshots/restore.ts) — its happy path, errors and request-path checks. */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import { snapshotDocs } from "../../support/snapshots";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const { newDoc, put, snap } = snapshotDocs(() => t);
/** The exact bytes of the blocks in the content response (the text after `"blocks":`). */
const rawContent = async (id: string) => {
  const res = await SELF.fetch(`${BASE}/document/${id}/content`, {
    headers: { authorization: `Bearer ${t.owner.token}` },
  });
  const text = await res.text();
  const at = text.indexOf('"blocks":');
  expect(at).toBeGreaterThan(0);
  return text.slice(at + '"blocks":'.length, -2);
};

describe("snapshots", () => {
  it("refuses to restore a snapshot whose frozen blocks nest deeper than 32 (content stored before the bound): 422, nothing restored", async () => {
    const id = await newDoc("Deep snapshot");
    await put(id, ["shallow"]);
    let node: Record<string, unknown> = { type: "paragraph", children: [] };
    for (let d = 0; d < 200; d++) node = { type: "bulletListItem", children: [node] };
    const [object] = (await env.BLOBS.list({ prefix: `content/${id}/` })).objects;
    await env.BLOBS.put(object!.key, JSON.stringify([node]));
    const frozen = await snap(id, "Deep");
    await put(id, ["current"]);
    const res = await call("POST", `/snapshot/${frozen.data._id}/restore`, { token: t.owner.token });
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.message).toMatch(/32/);
    const now = await ok("GET", `/document/${id}/content`, { token: t.owner.token });
    expect(now.data).toMatchObject({ version: 2, blocks: ["current"] });
    expect((await ok("GET", `/snapshot/all/${id}`, { token: t.owner.token })).data.map((s: any) => s.name)).toEqual([
      "Deep",
    ]);
  });

  it("keeps frozen content when the document moves on, and restores it byte for byte both ways", async () => {
    const id = await newDoc("Restore");
    const original = [{ type: "p", text: 'Ünïcödé ✓ \u2028 "quoted" \\ ', n: 1.5, deep: { a: [null, true, 0] } }];
    await put(id, original);
    const originalText = await rawContent(id);
    expect(JSON.parse(originalText)).toEqual(original);
    const s1 = await snap(id, "Original");
    const changed = [{ type: "p", text: "changed" }];
    await put(id, changed);
    const changedText = await rawContent(id);
    expect((await ok("GET", `/snapshot/${s1.data._id}`, { token: t.owner.token })).data.blocks).toEqual(original);

    const restored = await ok("POST", `/snapshot/${s1.data._id}/restore`, { token: t.editor.token });
    expect(restored.data).toEqual({
      contentVersion: 3,
      docxVersion: null,
      beforeRestoreSnapshotId: expect.any(String),
    });
    expect(await rawContent(id)).toBe(originalText);
    const before = await ok("GET", `/snapshot/${restored.data.beforeRestoreSnapshotId}`, { token: t.owner.token });
    expect(before.data).toMatchObject({ name: "Before restore", contentVersion: 2, blocks: changed });

    // Restore back to the state before the restore.
    const back = await ok("POST", `/snapshot/${restored.data.beforeRestoreSnapshotId}/restore`, {
      token: t.owner.token,
    });
    expect(back.data.contentVersion).toBe(4);
    expect(await rawContent(id)).toBe(changedText);
    // And forward again.
    await ok("POST", `/snapshot/${s1.data._id}/restore`, { token: t.owner.token });
    expect(await rawContent(id)).toBe(originalText);
    expect((await ok("GET", `/document/${id}/content`, { token: t.owner.token })).data).toEqual({
      documentId: id,
      version: 5,
      blocks: original,
    });

    const names = (await ok("GET", `/snapshot/all/${id}`, { token: t.owner.token })).data.map((s: any) => s.name);
    expect(names).toEqual(["Before restore", "Before restore", "Before restore", "Original"]);
  });

  it("restores a never-written state as empty blocks", async () => {
    const id = await newDoc("Blank");
    const s = await snap(id, "Blank");
    await put(id, ["x"]);
    await ok("POST", `/snapshot/${s.data._id}/restore`, { token: t.owner.token });
    expect((await ok("GET", `/document/${id}/content`, { token: t.owner.token })).data).toEqual({
      documentId: id,
      version: 2,
      blocks: [],
    });
  });

  it("freezes and restores the DOCX version of an EXTERNAL DOCX document", async () => {
    const v1 = docxBytes("first");
    const created = await call("POST", "/document/docx", {
      token: t.owner.token,
      raw: v1,
      query: { projectId: t.projectId, name: "Deal" },
      headers: { "content-type": DOCX_TYPE },
    });
    const id = created.body.data._id;
    await ok("POST", `/document/docx/${id}/mark-seeded`, { token: t.owner.token });
    const s = await snap(id, "v1");
    expect(s.data.docxVersion).toBe(1);
    await ok("PUT", `/document/docx/${id}`, { token: t.owner.token, raw: docxBytes("second") });

    const restored = await ok("POST", `/snapshot/${s.data._id}/restore`, { token: t.owner.token });
    expect(restored.data.docxVersion).toBe(3);
    const exported = await call("GET", `/document/docx/${id}/export`, { token: t.owner.token });
    expect(new Uint8Array(exported.body)).toEqual(v1);
    const doc = await ok("GET", `/document/${id}`, { token: t.owner.token });
    expect(doc.data.external.seededAt).toBeUndefined();
    expect(doc.data.external.resourceId).toBe(created.body.data.external.resourceId);
    const before = await ok("GET", `/snapshot/${restored.data.beforeRestoreSnapshotId}`, { token: t.owner.token });
    expect(before.data.docxVersion).toBe(2);
  });
});
