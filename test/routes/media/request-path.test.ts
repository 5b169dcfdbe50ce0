/**
 * Round trips and conditional reads of the audio routes (src/routes/media): the record in one D1 round trip, the
 * signed stream with R2's own range and onlyIf (304 on If-None-Match with the file's ETag, 206, 416).
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, seedTenant, type Tenant } from "../../support/harness";
import { AUDIO_HEADS, bytesWithHead } from "../../support/content-fixtures";

let t: Tenant;
let audioId: string;
let url: string;
const bytes = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 4000);
const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

beforeAll(async () => {
  t = await seedTenant();
  await call("GET", "/me", { token: t.owner.token });
  const res = await call("POST", "/media/audio", {
    token: t.owner.token,
    raw: bytes,
    query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" },
    headers: { "content-type": "application/octet-stream" },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(trips(res)).toBeLessThanOrEqual(3);
  audioId = res.body.data._id;
  url = res.body.data.url;
});

describe("GET /media/audio/{id}", () => {
  it("issues a fresh record in one round trip; an outsider gets 404, a missing id 404", async () => {
    const res = await call("GET", `/media/audio/${audioId}`, { token: t.owner.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ _id: audioId, mimeType: "audio/mpeg" });
    expect(trips(res)).toBe(1);
    expect((await call("GET", `/media/audio/${audioId}`, { token: t.viewer.token })).status).toBe(200);
    expectError(await call("GET", `/media/audio/${audioId}`, { token: t.outsider.token }), 404, "NotFoundError");
    expectError(
      await call("GET", `/media/audio/01M80000000000000000000000`, { token: t.owner.token }),
      404,
      "NotFoundError",
    );
  });
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
