/** uploadAudio: POST /media/audio (src/routes/media/uploadAudio.ts) — its happy path, errors and request-path checks. */
import { env, SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { AUDIO_HEADS, bytesWithHead, streamOf } from "../../support/content-fixtures";

const LIMIT = 50 * 1024 * 1024;
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

function upload(
  bytes: BodyInit,
  query: Record<string, string> = {},
  opts: { token?: string; headers?: Record<string, string> } = {},
) {
  return call("POST", "/media/audio", {
    token: opts.token ?? t.owner.token,
    raw: bytes,
    query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "memo.mp3", mimeType: "audio/mpeg", ...query },
    headers: { "content-type": "application/octet-stream", ...opts.headers },
  });
}

async function audioObjects() {
  return (await env.BLOBS.list({ prefix: `audio/${t.workspaceId}/` })).objects;
}

/** The bytes as a stream of small chunks, so a check past the first chunk is exercised. */
function streamOfBytes(bytes: Uint8Array) {
  return streamOf(bytes, 16 * 1024);
}

/** Fetch a signed URL without any bearer token. */
async function fetchSigned(url: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(url, { headers });
  const type = res.headers.get("content-type") ?? "";
  return {
    status: res.status,
    headers: res.headers,
    body: type.includes("json") ? await res.json<any>() : new Uint8Array(await res.arrayBuffer()),
  };
}

describe("E9 POST /media/audio", () => {
  it("stores each accepted format and answers a signed record", async () => {
    for (const [mimeType, head] of Object.entries(AUDIO_HEADS)) {
      const bytes = bytesWithHead(head, 3000);
      const res = await upload(bytes, { mimeType, fileName: `clip-${mimeType}` }, { token: t.editor.token });
      expect(res.status, `${mimeType}: ${JSON.stringify(res.body)}`).toBe(200);
      const { _id, url, mimeType: returned } = res.body.data;
      expect(returned).toBe(mimeType);
      const u = new URL(url);
      expect(u.origin).toBe("http://api.test");
      expect(u.pathname).toBe(`/media/audio/${_id}/content`);
      const expires = Number(u.searchParams.get("expires"));
      expect(expires - Date.now()).toBeGreaterThan(6 * 3600 * 1000 - 60_000);
      expect(expires - Date.now()).toBeLessThanOrEqual(6 * 3600 * 1000);
      expect(u.searchParams.get("signature")).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const content = await fetchSigned(url);
      expect(content.status).toBe(200);
      expect(content.headers.get("content-type")).toBe(mimeType);
      expect(content.headers.get("accept-ranges")).toBe("bytes");
      expect(content.body).toEqual(bytes);
    }
  });

  it("checks an ID3-tagged mp3 past its tag: HTML behind an ID3 header is 415 and nothing is stored", async () => {
    const frame = [0xff, 0xfb, 0x90, 0x64];
    const id3 = (size: number, flags = 0) => [
      0x49,
      0x44,
      0x33,
      0x04,
      0x00,
      flags,
      (size >> 21) & 0x7f,
      (size >> 14) & 0x7f,
      (size >> 7) & 0x7f,
      size & 0x7f,
    ];
    const html = [..."<html><script>alert(document.cookie)</script></html>"].map((c) => c.charCodeAt(0));
    const file = (...parts: number[][]) => Uint8Array.from(parts.flat());
    const before = (await audioObjects()).length;
    for (const [name, bytes] of [
      ["an empty tag, then HTML", file(id3(0), html)],
      ["a 300-byte tag, then HTML", file(id3(300), new Array(300).fill(0x41), html)],
      [
        "a 200 KB tag streamed in chunks, then HTML",
        file(id3(200_000), new Array(200_000).fill(0x41), html, new Array(70_000).fill(0x20)),
      ],
      ["a tag and nothing after it", file(id3(20), new Array(20).fill(0x41))],
      [
        "a tag whose size is not syncsafe",
        file([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80], frame, new Array(50).fill(1)),
      ],
    ] as const) {
      expectError(
        await upload(streamOfBytes(bytes), {}, { headers: { "content-length": String(bytes.length) } }),
        415,
        "UnsupportedMediaTypeError",
      );
      expect((await audioObjects()).length, name).toBe(before);
    }
    for (const [name, bytes] of [
      ["an empty tag, then a frame", file(id3(0), frame, new Array(100).fill(7))],
      [
        "a 200 KB tag, zero padding, then a frame",
        file(id3(200_000), new Array(200_000).fill(0x41), new Array(500).fill(0), frame, new Array(70_000).fill(7)),
      ],
      [
        "a tag with a footer, then a frame",
        file(id3(30, 0x10), new Array(40).fill(0x41), frame, new Array(10).fill(7)),
      ],
      ["two tags, then a frame", file(id3(5), new Array(5).fill(0x41), id3(3), new Array(3).fill(0x42), frame)],
    ] as const) {
      const res = await upload(streamOfBytes(bytes), {}, { headers: { "content-length": String(bytes.length) } });
      expect(res.status, `${name}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it("serves every blob with X-Content-Type-Options: nosniff (whole file, range, 304)", async () => {
    const res = await upload(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 1000));
    const url = res.body.data.url as string;
    const whole = await fetchSigned(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get("x-content-type-options")).toBe("nosniff");
    const part = await fetchSigned(url, { range: "bytes=0-9" });
    expect(part.status).toBe(206);
    expect(part.headers.get("x-content-type-options")).toBe("nosniff");
    const unchanged = await fetchSigned(url, { "if-none-match": whole.headers.get("etag")! });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("accepts an MPEG frame sync as mp3", async () => {
    const res = await upload(bytesWithHead([0xff, 0xfb, 0x90, 0x64], 500));
    expect(res.status).toBe(200);
  });

  it("validates the query", async () => {
    for (const q of <Record<string, string>[]>[
      { fileName: "" },
      { workspaceId: "" },
      { documentId: "" },
      { mimeType: "audio/flac" },
      { mimeType: "" },
    ]) {
      expectError(await upload(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 100), q), 400, "ValidationError");
    }
    const missing = await call("POST", "/media/audio", {
      token: t.owner.token,
      raw: new Uint8Array(10),
      query: { documentId: t.docId },
    });
    expectError(missing, 400, "ValidationError");
  });

  it("checks access: 404 unreadable or missing, 403 viewer, 400 outside the workspace", async () => {
    const bytes = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 100);
    expectError(await upload(bytes, {}, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(await upload(bytes, { documentId: "missing" }), 404, "NotFoundError");
    expectError(await upload(bytes, {}, { token: t.viewer.token }), 403, "ForbiddenError");
    expectError(await upload(bytes, { workspaceId: t.outsider.workspaceId }), 400, "ValidationError");
  });

  it("refuses 50 MiB + 1 byte with 413 and stores nothing", async () => {
    const before = (await audioObjects()).length;
    // The declared length alone triggers the refusal, so the body need not really be 50 MiB.
    const res = await upload(
      streamOf(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 256 * 1024)),
      {},
      { headers: { "content-length": String(LIMIT + 1) } },
    );
    expectError(res, 413, "PayloadTooLargeError");
    expect((await audioObjects()).length).toBe(before);
  });

  it("counts the actual bytes: a body longer or shorter than its Content-Length is 400 and stores nothing", async () => {
    const before = (await audioObjects()).length;
    const bytes = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 300_000);
    expectError(await upload(streamOf(bytes), {}, { headers: { "content-length": "100000" } }), 400, "ValidationError");
    expectError(await upload(streamOf(bytes), {}, { headers: { "content-length": "400000" } }), 400, "ValidationError");
    expect((await audioObjects()).length).toBe(before);
  });

  it("requires Content-Length (411), an audio body (415) and a raw content type (415)", async () => {
    const before = (await audioObjects()).length;
    expectError(await upload(streamOf(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 1000))), 411, "LengthRequiredError");
    expectError(
      await upload(bytesWithHead(AUDIO_HEADS["audio/ogg"]!, 1000), { mimeType: "audio/mpeg" }),
      415,
      "UnsupportedMediaTypeError",
    );
    expectError(
      await upload(bytesWithHead("RIFF\0\0\0\0AVI ", 1000), { mimeType: "audio/wav" }),
      415,
      "UnsupportedMediaTypeError",
    );
    expectError(
      await upload(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 1000), { mimeType: "audio/aac" }),
      415,
      "UnsupportedMediaTypeError",
    );
    expectError(
      await upload(bytesWithHead(AUDIO_HEADS["audio/aac"]!, 1000), { mimeType: "audio/mp4" }),
      415,
      "UnsupportedMediaTypeError",
    );
    expectError(await upload(new Uint8Array(0)), 415, "UnsupportedMediaTypeError");
    expectError(
      await upload(
        bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 1000),
        {},
        { headers: { "content-type": "application/json" } },
      ),
      415,
      "UnsupportedMediaTypeError",
    );
    expect((await audioObjects()).length).toBe(before);
  });
});

describe("signed audio content", () => {
  let id: string;
  let url: string;
  const bytes = bytesWithHead(AUDIO_HEADS["audio/wav"]!, 10_000);

  beforeAll(async () => {
    const res = await upload(bytes, { mimeType: "audio/wav", fileName: "take.wav" });
    ({ _id: id, url } = res.body.data);
  });

  it("answers 403 to a tampered or expired link", async () => {
    const u = new URL(url);
    const sig = u.searchParams.get("signature")!;
    const tampered = new URL(url);
    tampered.searchParams.set("signature", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    expectError((await fetchSigned(tampered.toString())) as any, 403, "ForbiddenError");

    const later = new URL(url);
    later.searchParams.set("expires", String(Number(u.searchParams.get("expires")) + 1000));
    expectError((await fetchSigned(later.toString())) as any, 403, "ForbiddenError");

    const other = await upload(bytesWithHead(AUDIO_HEADS["audio/ogg"]!, 100), { mimeType: "audio/ogg" });
    const swapped = new URL(url.replace(id, other.body.data._id));
    expectError((await fetchSigned(swapped.toString())) as any, 403, "ForbiddenError");

    const unsigned = new URL(url);
    unsigned.search = "";
    expectError((await fetchSigned(unsigned.toString())) as any, 403, "ForbiddenError");

    // A correctly signed but expired link, made with the deployment's secret.
    const { signAudioUrl } = await import("../../../src/services/media/audio");
    const expired = await signAudioUrl("http://api.test", id, env.SIGNING_SECRET!, Date.now() - 6 * 3600 * 1000 - 1);
    const res = await fetchSigned(expired);
    expectError(res as any, 403, "ForbiddenError");
    expect((res.body as any).message).toMatch(/expired/);
  });
});

describe("signing configuration", () => {
  it("refuses with 503, not 500, when SIGNING_SECRET is missing", async () => {
    const { requireSigningSecret } = await import("../../../src/services/media/audio");
    const { errorStatus } = await import("../../../src/http/errors");
    expect(() => requireSigningSecret(undefined)).toThrow(expect.objectContaining({ code: "ServiceUnavailableError" }));
    expect(errorStatus.ServiceUnavailableError).toBe(503);
    expect(() => requireSigningSecret("")).toThrow(/not configured/);
    expect(requireSigningSecret("s")).toBe("s");
  });
});
