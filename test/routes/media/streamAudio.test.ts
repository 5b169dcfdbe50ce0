/** streamAudio: GET /media/audio/{audioId}/content (src/routes/media/streamAudio.ts) — its happy path, errors and request-path checks. */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, seedTenant, type Tenant } from "../../support/harness";
import { AUDIO_HEADS, bytesWithHead } from "../../support/content-fixtures";
import { uploadAudio, fetchSigned, type AudioUploadOptions } from "../../support/audio";

// One tenant for the file: each describe uploads its own audio.
let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
});

describe("audio", () => {
  const upload = (bytes: BodyInit, query: Record<string, string> = {}, opts: AudioUploadOptions = {}) =>
    uploadAudio(t, bytes, query, opts);

  describe("signed audio content", () => {
    let url: string;
    const bytes = bytesWithHead(AUDIO_HEADS["audio/wav"]!, 10_000);

    beforeAll(async () => {
      const res = await upload(bytes, { mimeType: "audio/wav", fileName: "take.wav" });
      ({ url } = res.body.data);
    });

    it("serves exactly the bytes asked for in a Range", async () => {
      const mid = await fetchSigned(url, { range: "bytes=100-199" });
      expect(mid.status).toBe(206);
      expect(mid.headers.get("content-range")).toBe(`bytes 100-199/${bytes.length}`);
      expect(mid.headers.get("content-length")).toBe("100");
      expect(mid.body).toEqual(bytes.slice(100, 200));

      const open = await fetchSigned(url, { range: "bytes=9990-" });
      expect(open.status).toBe(206);
      expect(open.body).toEqual(bytes.slice(9990));

      const suffix = await fetchSigned(url, { range: "bytes=-16" });
      expect(suffix.status).toBe(206);
      expect(suffix.headers.get("content-range")).toBe(`bytes 9984-9999/${bytes.length}`);
      expect(suffix.body).toEqual(bytes.slice(-16));

      const clamped = await fetchSigned(url, { range: "bytes=9000-20000" });
      expect(clamped.status).toBe(206);
      expect(clamped.body).toEqual(bytes.slice(9000));
    });

    it("answers 416 for an unsatisfiable range and ignores a malformed one", async () => {
      const res = await fetchSigned(url, { range: "bytes=10000-10010" });
      expect(res.status).toBe(416);
      expect(res.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
      expect((res.body as any).error).toBe("RangeNotSatisfiableError");
      const whole = await fetchSigned(url, { range: "pages=1-2" });
      expect(whole.status).toBe(200);
      expect(whole.body).toEqual(bytes);
    });
  });
});

/**
 * Round trips and conditional reads of the audio routes (src/routes/media): the record in one D1 round trip, the
 * signed stream with R2's own range and onlyIf (304 on If-None-Match with the file's ETag, 206, 416).
 */
describe("request-path", () => {
  let url: string;
  const bytes = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 4000);
  const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

  beforeAll(async () => {
    const res = await uploadAudio(t, bytes, { fileName: "a.mp3" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(trips(res)).toBeLessThanOrEqual(3);
    url = res.body.data.url;
  });

  describe("signed audio stream", () => {
    it("answers 304 when If-None-Match names the file's ETag, 200 otherwise", async () => {
      const full = await SELF.fetch(url);
      expect(full.status).toBe(200);
      expect(new Uint8Array(await full.arrayBuffer())).toEqual(bytes);
      const etag = full.headers.get("etag")!;
      expect(etag).toMatch(/^"[0-9a-f]+"$/);
      const cached = await SELF.fetch(url, { headers: { "if-none-match": etag } });
      expect(cached.status).toBe(304);
      expect(cached.headers.get("etag")).toBe(etag);
      expect(await cached.arrayBuffer()).toHaveProperty("byteLength", 0);
      const other = await SELF.fetch(url, { headers: { "if-none-match": '"different"' } });
      expect(other.status).toBe(200);
      await other.arrayBuffer();
    });

    it("serves a range from R2 (206) and 416 outside the file, still signed", async () => {
      const part = await SELF.fetch(url, { headers: { range: "bytes=10-19" } });
      expect(part.status).toBe(206);
      expect(part.headers.get("content-range")).toBe(`bytes 10-19/${bytes.length}`);
      expect(new Uint8Array(await part.arrayBuffer())).toEqual(bytes.slice(10, 20));
      const out = await SELF.fetch(url, { headers: { range: `bytes=${bytes.length}-` } });
      expect(out.status).toBe(416);
      expect(out.headers.get("content-range")).toBe(`bytes */${bytes.length}`);
      await out.arrayBuffer();
      const tampered = await SELF.fetch(url.replace(/signature=[^&]+/, "signature=AAAA"), {
        headers: { range: "bytes=0-1" },
      });
      expect(tampered.status).toBe(403);
      await tampered.arrayBuffer();
    });
  });
});
