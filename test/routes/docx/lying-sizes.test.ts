// Security finding 8 (issue 34): a DOCX whose local and central headers agree on a small inflated size for
// word/document.xml while its deflate stream inflates to far more (or fewer) bytes. Every inflation stops at the
// declared size; an upload that disagrees with its headers is 415 with nothing stored, and answers quickly.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";
import { crc32 } from "node:zlib";
import { buildLyingDocx, writeZip, type RawZipEntry } from "../../../converter/test/fixtures";
import { docxText } from "../../../src/services/search/text";

const MiB = 1024 * 1024;

let t: Tenant;
let other: Tenant;
let lyingMore: Uint8Array;
let lyingFewer: Uint8Array;
beforeAll(async () => {
  [t, other] = await Promise.all([seedTenant(), seedTenant()]);
  lyingMore = buildLyingDocx({ inflatedBytes: 64 * MiB }); // declares 900,000 bytes in both headers
  lyingFewer = buildLyingDocx({ inflatedBytes: 100_000 });
});

async function docxObjectCount(prefix = "docx/"): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const page = await env.BLOBS.list({ prefix, cursor, limit: 1000 });
    n += page.objects.length;
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor);
  return n;
}

async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/**
 * The finding's file: word/document.xml is `mib` MiB of zeros deflated as one stream (about 1000:1; no flush, so
 * no stored block stops a decoder early) while both headers declare 900,000 bytes. Deflated chunk by chunk, so
 * the zeros are never held whole.
 */
async function zeroBomb(mib: number): Promise<Uint8Array> {
  const chunk = new Uint8Array(MiB);
  const stream = new CompressionStream("deflate-raw");
  const writer = stream.writable.getWriter();
  const writing = (async () => {
    for (let i = 0; i < mib; i++) await writer.write(chunk);
    await writer.close();
  })();
  const data = new Uint8Array(await new Response(stream.readable).arrayBuffer());
  await writing;
  let crc = 0;
  for (let i = 0; i < mib; i++) crc = crc32(chunk, crc);
  const small = (name: string, text: string): RawZipEntry => ({
    name,
    method: 0,
    crc: crc32(text),
    data: new TextEncoder().encode(text),
    inflatedSize: text.length,
  });
  const document: RawZipEntry = { name: "word/document.xml", method: 8, crc, data, inflatedSize: mib * MiB };
  return writeZip([small("[Content_Types].xml", "<Types/>"), document], {
    centralSize: { [document.name]: 900_000 },
    localSize: { [document.name]: 900_000 },
  });
}

const create = (bytes: Uint8Array, name: string, tenant = t) =>
  call("POST", "/document/docx", {
    token: tenant.owner.token,
    raw: bytes,
    query: { projectId: tenant.projectId, name },
    headers: { "content-type": DOCX_TYPE },
  });

describe("a DOCX whose headers lie about word/document.xml's inflated size", () => {
  it("POST /document/docx answers 415 within a second or two for more and for fewer bytes than declared, storing nothing", async () => {
    expect(lyingMore.length).toBeLessThan(MiB);
    const before = await docxObjectCount();
    for (const [bytes, message] of [
      [lyingMore, /word\/document\.xml" inflates past the 900000 bytes its headers declare/],
      [lyingFewer, /word\/document\.xml" inflates to 100000 bytes, not the 900000 its headers declare/],
    ] as const) {
      const { value: res, ms } = await timed(() => create(bytes, "Liar"));
      expectError(res, 415, "UnsupportedMediaTypeError");
      expect(res.body.message).toMatch(message);
      expect(ms).toBeLessThan(2000);
    }
    expect(await docxObjectCount()).toBe(before);
    const docs = await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
    expect(docs.data.filter((d: any) => d.name === "Liar")).toEqual([]);
  });

  it("PUT /document/docx/{id} answers 415 and keeps the one stored version", async () => {
    const doc = (
      await ok("POST", "/document/docx", {
        token: t.owner.token,
        raw: docxBytes(),
        query: { projectId: t.projectId, name: "Honest" },
      })
    ).data;
    for (const bytes of [lyingMore, lyingFewer]) {
      const { value: res, ms } = await timed(() =>
        call("PUT", `/document/docx/${doc._id}`, { token: t.owner.token, raw: bytes }),
      );
      expectError(res, 415, "UnsupportedMediaTypeError");
      expect(ms).toBeLessThan(2000);
    }
    expect((await env.BLOBS.list({ prefix: `docx/${doc._id}/` })).objects).toHaveLength(1);
    const res = await call("GET", `/document/docx/${doc._id}/export`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(new Uint8Array(res.body)).toEqual(docxBytes());
  });

  it("a wrong CRC-32 is refused too", async () => {
    const bytes = docxBytes();
    // The first entry's CRC, in its local header (offset 14) and its central directory entry: flip one bit in both.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const cdOffset = view.getUint32(bytes.length - 22 + 16, true);
    view.setUint32(14, view.getUint32(14, true) ^ 1, true);
    view.setUint32(cdOffset + 16, view.getUint32(cdOffset + 16, true) ^ 1, true);
    const res = await create(bytes, "Liar");
    expectError(res, 415, "UnsupportedMediaTypeError");
    expect(res.body.message).toMatch(/fails its CRC-32 check/);
  });

  it("E21 refuses to serve a lying archive stored before uploads were checked, and serves an honest one", async () => {
    const doc = (
      await ok("POST", "/document/docx", {
        token: t.owner.token,
        raw: docxBytes(),
        query: { projectId: t.projectId, name: "Legacy" },
      })
    ).data;
    const key = `docx/${doc._id}/${doc.external.resourceId}.docx`;
    // Written as the service wrote every blob before the fix: no record that its inflation was checked.
    await env.BLOBS.put(key, lyingMore, { httpMetadata: { contentType: DOCX_TYPE } });
    const { value: res, ms } = await timed(() =>
      call("GET", `/document/docx/${doc._id}/export`, { token: t.viewer.token }),
    );
    expectError(res, 422, "UnprocessableEntityError");
    expect(res.body.message).toMatch(/inflates past the 900000 bytes/);
    expect(ms).toBeLessThan(2000);
    const honest = docxBytes("legacy but honest");
    await env.BLOBS.put(key, honest, { httpMetadata: { contentType: DOCX_TYPE } });
    const served = await call("GET", `/document/docx/${doc._id}/export`, { token: t.viewer.token });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-length")).toBe(String(honest.length));
    expect(new Uint8Array(served.body)).toEqual(honest);
  });

  it("search indexing (snapshot restores and the reindex read stored blobs) stops at the declared size and indexes a lie as nothing", async () => {
    expect(docxText(docxBytes("findable words"))).toContain("findable words");
    for (const bytes of [lyingMore, lyingFewer, await zeroBomb(600)]) {
      const started = performance.now();
      expect(docxText(bytes)).toBe("");
      expect(performance.now() - started).toBeLessThan(500);
    }
  });

  it("another tenant's GET /me stays quick during two concurrent lying uploads the size of the finding's (600 MiB inflated)", async () => {
    const bomb = await zeroBomb(600);
    expect(bomb.length).toBeLessThan(MiB); // like the finding's 612 KB file
    await ok("GET", "/me", { token: other.owner.token }); // warm
    const alone = await timed(() => call("GET", "/me", { token: other.owner.token }));
    const uploads = Promise.all([create(bomb, "Liar"), create(bomb, "Liar")].map((p) => timed(() => p)));
    await new Promise((r) => setTimeout(r, 5));
    const me = await timed(() => call("GET", "/me", { token: other.owner.token }));
    const done = await uploads;
    console.log(
      `finding 8: GET /me of another tenant ${alone.ms.toFixed(0)} ms alone, ${me.ms.toFixed(0)} ms during two lying uploads of ${done.map((d) => d.ms.toFixed(0)).join(" and ")} ms`,
    );
    expect(me.value.status).toBe(200);
    for (const d of done) expectError(d.value, 415, "UnsupportedMediaTypeError");
    expect(me.ms).toBeLessThan(1000);
  });
});
