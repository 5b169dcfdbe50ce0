import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

async function newDoc(name = "Snap") {
  return (
    await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, parentId: t.folderId, name, type: "DOCUMENT" },
    })
  ).data._id as string;
}
const put = (id: string, blocks: unknown) =>
  ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks } });
const snap = (documentId: string, name: string, token = t.owner.token, description?: string) =>
  ok("POST", "/snapshot", { token, body: { documentId, name, ...(description !== undefined && { description }) } });
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
const contentKeys = async (id: string) =>
  (await env.BLOBS.list({ prefix: `content/${id}/` })).objects.map((o) => o.key).sort();

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

  it("creates, lists newest first, reads with blocks, renames", async () => {
    const id = await newDoc();
    const empty = await snap(id, "Empty", t.editor.token);
    expect(empty.data).toEqual({
      _id: expect.any(String),
      documentId: id,
      name: "Empty",
      description: "",
      contentVersion: 0,
      docxVersion: null,
      userId: t.editor.id,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    await put(id, [{ p: "one" }]);
    const one = await snap(id, "One", t.owner.token, "first draft");
    expect(one.data).toMatchObject({ contentVersion: 1, description: "first draft" });

    const list = await ok("GET", `/snapshot/all/${id}`, { token: t.viewer.token });
    expect(list.data.map((s: any) => s.name)).toEqual(["One", "Empty"]);

    const got = await ok("GET", `/snapshot/${one.data._id}`, { token: t.viewer.token });
    expect(got.data).toEqual({ ...one.data, blocks: [{ p: "one" }] });
    expect((await ok("GET", `/snapshot/${empty.data._id}`, { token: t.owner.token })).data.blocks).toEqual([]);

    expect(await ok("PUT", `/snapshot/${one.data._id}`, { token: t.editor.token, body: { name: "Renamed" } })).toEqual({
      data: { success: true },
    });
    expect(await ok("PUT", `/snapshot/${one.data._id}`, { token: t.owner.token, body: { description: "" } })).toEqual({
      data: { success: true },
    });
    const after = await ok("GET", `/snapshot/${one.data._id}`, { token: t.owner.token });
    expect(after.data).toMatchObject({ name: "Renamed", description: "" });
    expect(after.data.updatedAt).toBeGreaterThanOrEqual(one.data.updatedAt);
    // A client may send back what it read.
    const { blocks: _b, ...record } = after.data;
    expect(
      (await call("PUT", `/snapshot/${one.data._id}`, { token: t.owner.token, body: { ...record, name: "Again" } }))
        .status,
    ).toBe(200);
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

  it("deletes a snapshot and its content object only when nothing else shares it", async () => {
    const id = await newDoc("Delete");
    await put(id, ["a"]);
    const [current] = await contentKeys(id);
    const shared1 = await snap(id, "s1");
    const shared2 = await snap(id, "s2");
    expect(await ok("DELETE", `/snapshot/${shared1.data._id}`, { token: t.editor.token })).toEqual({
      data: { success: true },
    });
    expect(await contentKeys(id)).toEqual([current]);
    expectError(await call("GET", `/snapshot/${shared1.data._id}`, { token: t.owner.token }), 404, "NotFoundError");

    await put(id, ["b"]);
    // The old object is kept for s2, the new one is current.
    expect(await contentKeys(id)).toHaveLength(2);
    await ok("DELETE", `/snapshot/${shared2.data._id}`, { token: t.owner.token });
    const left = await contentKeys(id);
    expect(left).toHaveLength(1);
    expect(left).not.toContain(current);
    expect((await ok("GET", `/document/${id}/content`, { token: t.owner.token })).data.blocks).toEqual(["b"]);

    // A snapshot of the current content: deleting it keeps the object the document still uses.
    const s3 = await snap(id, "s3");
    await ok("DELETE", `/snapshot/${s3.data._id}`, { token: t.owner.token });
    expect(await contentKeys(id)).toEqual(left);
    expectError(await call("DELETE", `/snapshot/${s3.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
  });

  it("answers errors", async () => {
    const id = await newDoc("Errors");
    const s = await snap(id, "s");
    // E8: neither name nor description.
    expectError(
      await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: {} }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: { name: "" } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PUT", `/snapshot/${s.data._id}`, { token: t.owner.token, body: { name: "x", bogus: 1 } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("PUT", "/snapshot/missing", { token: t.owner.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PUT", `/snapshot/${s.data._id}`, { token: t.outsider.token, body: { name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PUT", `/snapshot/${s.data._id}`, { token: t.viewer.token, body: { name: "x" } }),
      403,
      "ForbiddenError",
    );

    expectError(
      await call("POST", "/snapshot", { token: t.owner.token, body: { documentId: id } }),
      400,
      "ValidationError",
    );
    expectError(
      await call("POST", "/snapshot", { token: t.owner.token, body: { documentId: "missing", name: "x" } }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("POST", "/snapshot", { token: t.viewer.token, body: { documentId: id, name: "x" } }),
      403,
      "ForbiddenError",
    );
    expectError(await call("GET", "/snapshot/all/missing", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/snapshot/all/${id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await call("GET", `/snapshot/${s.data._id}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("POST", `/snapshot/${s.data._id}/restore`, { token: t.viewer.token }),
      403,
      "ForbiddenError",
    );
    expectError(await call("POST", "/snapshot/missing/restore", { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("DELETE", `/snapshot/${s.data._id}`, { token: t.viewer.token }), 403, "ForbiddenError");

    await ok("DELETE", `/document/${id}`, { token: t.owner.token });
    expectError(await call("GET", `/snapshot/${s.data._id}`, { token: t.owner.token }), 404, "NotFoundError");
    expectError(await call("GET", `/snapshot/all/${id}`, { token: t.owner.token }), 404, "NotFoundError");
  });
});
