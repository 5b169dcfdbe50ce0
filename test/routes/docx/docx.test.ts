import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE, plainZipBytes, streamOf } from "../../support/content-fixtures";
import { buildDocxBomb } from "../../../converter/test/fixtures";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

const createDocx = (
  bytes: Uint8Array,
  query: Record<string, string>,
  token = t.owner.token,
  headers: Record<string, string> = {},
) => call("POST", "/document/docx", { token, raw: bytes, query, headers: { "content-type": DOCX_TYPE, ...headers } });

async function newDocx(name = "Contract.docx", bytes = docxBytes()) {
  const res = await createDocx(bytes, { projectId: t.projectId, name, parentId: t.folderId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

const exportDocx = (id: string, token = t.owner.token, headers?: Record<string, string>) =>
  call("GET", `/document/docx/${id}/export`, { token, headers });

describe("POST /document/docx", () => {
  it("creates an EXTERNAL DOCX document the caller owns", async () => {
    const doc = await newDocx("Contract");
    expect(doc).toMatchObject({
      name: "Contract",
      type: "EXTERNAL",
      projectId: t.projectId,
      parentId: t.folderId,
      workspaceId: t.workspaceId,
      external: { type: "DOCX", resourcePath: `/document/docx/${doc._id}/export`, resourceId: expect.any(String) },
      collaborators: [{ userId: t.owner.id, role: "owner" }],
    });
    expect(doc.external.seededAt).toBeUndefined();
    const read = await ok("GET", `/document/${doc._id}`, { token: t.viewer.token });
    expect(read.data.external).toEqual(doc.external);
    // At the project root, with no Content-Type at all.
    const root = await call("POST", "/document/docx", {
      token: t.editor.token,
      raw: docxBytes(),
      query: { projectId: t.projectId, name: "Root" },
    });
    expect(root.status).toBe(200);
    expect(root.body.data.parentId).toBeNull();
  });

  it("checks the body: 411 without Content-Length, 413 over 50 MiB, 415 for non-DOCX, 400 for a short body", async () => {
    const query = { projectId: t.projectId, name: "Bad" };
    const noLength = await call("POST", "/document/docx", { token: t.owner.token, raw: streamOf(docxBytes()), query });
    expectError(noLength, 411, "LengthRequiredError");
    const tooBig = await call("POST", "/document/docx", {
      token: t.owner.token,
      raw: streamOf(docxBytes()),
      query,
      headers: { "content-length": String(50 * 1024 * 1024 + 1) },
    });
    expectError(tooBig, 413, "PayloadTooLargeError");
    expectError(
      await createDocx(new TextEncoder().encode("plain text, not a zip"), query),
      415,
      "UnsupportedMediaTypeError",
    );
    expectError(await createDocx(plainZipBytes(), query), 415, "UnsupportedMediaTypeError");
    expectError(
      await createDocx(docxBytes(), query, t.owner.token, { "content-type": "application/json" }),
      415,
      "UnsupportedMediaTypeError",
    );
    const bytes = docxBytes();
    const short = await call("POST", "/document/docx", {
      token: t.owner.token,
      raw: streamOf(bytes),
      query,
      headers: { "content-length": String(bytes.length + 10) },
    });
    expectError(short, 400, "ValidationError");
    const docs = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(docs.data.filter((d: any) => d.name === "Bad")).toEqual([]);
  });

  it("refuses a DOCX zip bomb with 413 (plain, zip64) and a ZIP whose headers disagree with 415, storing nothing", async () => {
    const query = { projectId: t.projectId, name: "Bomb" };
    for (const zip64 of [false, true]) {
      const bomb = await createDocx(buildDocxBomb({ zip64 }), query);
      expectError(bomb, 413, "PayloadTooLargeError");
      expect(bomb.body.message).toMatch(/word\/document\.xml" inflates \d+:1/);
    }
    expectError(await createDocx(buildDocxBomb({ lie: "central" }), query), 415, "UnsupportedMediaTypeError");
    const doc = await newDocx("Target");
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: buildDocxBomb({ zip64: true }) }),
      413,
      "PayloadTooLargeError",
    );
    const docs = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(docs.data.filter((d: any) => d.name === "Bomb")).toEqual([]);
  });

  it("checks the query and access like POST /document", async () => {
    expectError(await createDocx(docxBytes(), { name: "x" }), 400, "ValidationError");
    expectError(await createDocx(docxBytes(), { projectId: t.projectId, name: "" }), 400, "ValidationError");
    expectError(await createDocx(docxBytes(), { projectId: "missing", name: "x" }), 404, "NotFoundError");
    expectError(
      await createDocx(docxBytes(), { projectId: t.projectId, name: "x", parentId: "missing" }),
      404,
      "NotFoundError",
    );
    expectError(
      await createDocx(docxBytes(), { projectId: t.projectId, name: "x", parentId: t.docId }),
      400,
      "ValidationError",
    );
    expectError(
      await createDocx(docxBytes(), { projectId: t.projectId, name: "x" }, t.viewer.token),
      403,
      "ForbiddenError",
    );
    expectError(
      await createDocx(docxBytes(), { projectId: t.projectId, name: "x", parentId: t.folderId }, t.viewer.token),
      403,
      "ForbiddenError",
    );
    expectError(
      await createDocx(docxBytes(), { projectId: t.projectId, name: "x" }, t.outsider.token),
      404,
      "NotFoundError",
    );
  });
});

describe("PUT /document/docx/{id} and E21 export", () => {
  it("streams the newest version with its headers and bytes", async () => {
    const v1 = docxBytes("version one");
    const doc = await newDocx("Vertrag – Übersicht «final»", v1);
    const first = await exportDocx(doc._id, t.viewer.token);
    expect(first.status).toBe(200);
    expect(new Uint8Array(first.body)).toEqual(v1);

    const v2 = docxBytes("version two, longer than the first one");
    const put = await call("PUT", `/document/docx/${doc._id}`, {
      token: t.editor.token,
      raw: v2,
      headers: { "content-type": "application/octet-stream" },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.data).toMatchObject({ documentId: doc._id, version: 2, size: v2.length, etag: expect.any(String) });

    const res = await exportDocx(doc._id);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe(DOCX_TYPE);
    expect(res.headers.get("content-length")).toBe(String(v2.length));
    expect(res.headers.get("etag")).toBe(put.body.data.etag);
    expect(res.headers.get("etag")).not.toBe(first.headers.get("etag"));
    const disposition = res.headers.get("content-disposition")!;
    expect(disposition).toMatch(/^attachment; filename="[\x20-\x7e]+\.docx"; filename\*=UTF-8''/);
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent("Vertrag – Übersicht «final».docx")}`);
    expect(disposition).not.toMatch(/filename="[^"]*[^\x20-\x7e][^"]*"/);
    expect(new Uint8Array(res.body)).toEqual(v2);

    // Both versions stay stored.
    expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(2);

    const cached = await exportDocx(doc._id, t.owner.token, { "if-none-match": put.body.data.etag });
    expect(cached.status).toBe(304);
  });

  it("keeps an ASCII name as is and adds .docx once", async () => {
    const doc = await newDocx("report.docx");
    const res = await exportDocx(doc._id);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="report.docx"; filename*=UTF-8''report.docx`,
    );
  });

  it("answers errors", async () => {
    const doc = await newDocx();
    expectError(await exportDocx(t.docId), 409, "ConflictError");
    expectError(await exportDocx("missing"), 404, "NotFoundError");
    expectError(await exportDocx(doc._id, t.outsider.token), 404, "NotFoundError");
    expectError(await exportDocx("bad$id"), 400, "ValidationError");

    expectError(
      await call("PUT", `/document/docx/${t.docId}`, { token: t.owner.token, raw: docxBytes() }),
      409,
      "ConflictError",
    );
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, { token: t.viewer.token, raw: docxBytes() }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, { token: t.outsider.token, raw: docxBytes() }),
      404,
      "NotFoundError",
    );
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: streamOf(docxBytes()) }),
      411,
      "LengthRequiredError",
    );
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, {
        token: t.owner.token,
        raw: streamOf(docxBytes()),
        headers: { "content-length": String(60 * 1024 * 1024) },
      }),
      413,
      "PayloadTooLargeError",
    );
    expectError(
      await call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: plainZipBytes() }),
      415,
      "UnsupportedMediaTypeError",
    );
    expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(1);

    await ok("DELETE", `/document/${doc._id}`, { token: t.owner.token });
    expectError(await exportDocx(doc._id), 404, "NotFoundError");
  });
});

describe("E18 mark-seeded", () => {
  it("sets seededAt once per version and answers it again; a new version clears it", async () => {
    const doc = await newDocx();
    const first = await ok("POST", `/document/docx/${doc._id}/mark-seeded`, { token: t.viewer.token });
    expect(first.data.seededAt).toEqual(expect.any(Number));
    const again = await ok("POST", `/document/docx/${doc._id}/mark-seeded`, { token: t.owner.token });
    expect(again).toEqual(first);
    expect((await ok("GET", `/document/${doc._id}`, { token: t.owner.token })).data.external.seededAt).toBe(
      first.data.seededAt,
    );

    await ok("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: docxBytes("v2") });
    const read = await ok("GET", `/document/${doc._id}`, { token: t.owner.token });
    expect(read.data.external.seededAt).toBeUndefined();
    expect(read.data.external.resourceId).not.toBe(doc.external.resourceId);
    await new Promise((r) => setTimeout(r, 2));
    const second = await ok("POST", `/document/docx/${doc._id}/mark-seeded`, { token: t.owner.token });
    expect(second.data.seededAt).toBeGreaterThan(first.data.seededAt);
  });

  it("concurrent calls agree on one value", async () => {
    const doc = await newDocx();
    const all = await Promise.all(
      [1, 2, 3].map(() => ok("POST", `/document/docx/${doc._id}/mark-seeded`, { token: t.owner.token })),
    );
    expect(new Set(all.map((r) => r.data.seededAt)).size).toBe(1);
  });

  it("answers 409 for a document that is not a DOCX, 404 when missing or unreadable", async () => {
    expectError(
      await call("POST", `/document/docx/${t.docId}/mark-seeded`, { token: t.owner.token }),
      409,
      "ConflictError",
    );
    expectError(
      await call("POST", `/document/docx/${t.folderId}/mark-seeded`, { token: t.owner.token }),
      409,
      "ConflictError",
    );
    expectError(
      await call("POST", "/document/docx/missing/mark-seeded", { token: t.owner.token }),
      404,
      "NotFoundError",
    );
    const doc = await newDocx();
    expectError(
      await call("POST", `/document/docx/${doc._id}/mark-seeded`, { token: t.outsider.token }),
      404,
      "NotFoundError",
    );
  });
});
