/** createDocx: POST /document/docx (src/routes/docx/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE, plainZipBytes, streamOf } from "../../support/content-fixtures";
import { buildDocxBomb, buildLyingDocx, writeZip, type RawZipEntry } from "../../../converter/test/fixtures";
import { env } from "cloudflare:test";
import { crc32 } from "node:zlib";
import { docxText } from "../../../src/services/search/text";
import { postDocx, newDocxIn } from "../../support/docx";

// One tenant for the file: its cases make their own records in it.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

describe("docx", () => {
  const createDocx = (
    bytes: Uint8Array,
    query: Record<string, string>,
    token = t.owner.token,
    headers: Record<string, string> = {},
  ) => postDocx(bytes, query, token, headers);

  const newDocx = (name?: string, bytes?: Uint8Array) => newDocxIn(t, name, bytes);

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
      const noLength = await call("POST", "/document/docx", {
        token: t.owner.token,
        raw: streamOf(docxBytes()),
        query,
      });
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
});

// Security finding 8 (issue 34): a DOCX whose local and central headers agree on a small inflated size for
// word/document.xml while its deflate stream inflates to far more (or fewer) bytes. Every inflation stops at the
// declared size; an upload that disagrees with its headers is 415 with nothing stored, and answers quickly.
describe("lying-sizes", () => {
  const MiB = 1024 * 1024;

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
});

/**
 * Round trips and conditional reads of the DOCX routes (src/routes/docx): E21 in one D1 round trip with R2
 * evaluating If-None-Match (`onlyIf`) against the blob's own ETag; writes within 3.
 */
describe("request-path", () => {
  beforeAll(async () => {
    await call("GET", "/me", { token: t.owner.token });
  });
  const create = (query: Record<string, string>) =>
    call("POST", "/document/docx", {
      token: t.owner.token,
      raw: docxBytes(),
      query,
      headers: { "content-type": DOCX_TYPE },
    });

  describe("DOCX round trips", () => {
    it("refuses a parent that is not a folder and a viewer creating at the root", async () => {
      const doc = await create({ projectId: t.projectId, name: "Leaf" });
      expectError(
        await create({ projectId: t.projectId, name: "x", parentId: doc.body.data._id }),
        400,
        "ValidationError",
      );
      const viewer = await call("POST", "/document/docx", {
        token: t.viewer.token,
        raw: docxBytes(),
        query: { projectId: t.projectId, name: "x" },
        headers: { "content-type": DOCX_TYPE },
      });
      expectError(viewer, 403, "ForbiddenError");
      const outsider = await call("POST", "/document/docx", {
        token: t.outsider.token,
        raw: docxBytes(),
        query: { projectId: t.projectId, name: "x" },
        headers: { "content-type": DOCX_TYPE },
      });
      expectError(outsider, 404, "NotFoundError");
    });
  });

  describe("Idempotency-Key on a DOCX upload (docs/api-guide.md › HTTP semantics: retries, caching, replicas)", () => {
    it("runs once and is replayed, whatever the DOCX media type's name contains (never read as text to be hashed)", async () => {
      const key = `docx-${crypto.randomUUID()}`;
      const send = () =>
        call("POST", "/document/docx", {
          token: t.owner.token,
          raw: docxBytes(),
          query: { projectId: t.projectId, name: "Keyed upload" },
          headers: { "content-type": DOCX_TYPE, "idempotency-key": key },
        });
      const first = await send();
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(again.body).toEqual(first.body);
      const list = await call("GET", `/document/all/${t.projectId}`, { token: t.owner.token });
      expect(list.body.data.filter((d: { name: string }) => d.name === "Keyed upload")).toHaveLength(1);
    });
  });
});
