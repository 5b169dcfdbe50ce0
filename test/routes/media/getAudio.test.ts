/** getAudio: GET /media/audio/{audioId} (src/routes/media/getAudio.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
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
    let id: string;
    const bytes = bytesWithHead(AUDIO_HEADS["audio/wav"]!, 10_000);

    beforeAll(async () => {
      const res = await upload(bytes, { mimeType: "audio/wav", fileName: "take.wav" });
      ({ _id: id } = res.body.data);
    });

    it("re-issues a fresh record with a bearer token and read access", async () => {
      const fresh = await ok("GET", `/media/audio/${id}`, { token: t.viewer.token });
      expect(fresh.data).toMatchObject({
        _id: id,
        mimeType: "audio/wav",
        url: expect.stringContaining(`/media/audio/${id}/content?expires=`),
      });
      expect((await fetchSigned(fresh.data.url)).body).toEqual(bytes);
      expectError(await call("GET", `/media/audio/${id}`, { token: t.outsider.token }), 404, "NotFoundError");
      expectError(await call("GET", "/media/audio/missing", { token: t.owner.token }), 404, "NotFoundError");
      expectError(await call("GET", `/media/audio/${id}`, {}), 401, "UnauthorizedError");
    });

    it("vanishes with its document", async () => {
      const doc = await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: t.projectId, name: "Memo", type: "DOCUMENT" },
      });
      const res = await upload(bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 100), { documentId: doc.data._id });
      await ok("DELETE", `/document/${doc.data._id}`, { token: t.owner.token });
      expectError((await fetchSigned(res.body.data.url)) as any, 404, "NotFoundError");
      expectError(
        await call("GET", `/media/audio/${res.body.data._id}`, { token: t.owner.token }),
        404,
        "NotFoundError",
      );
    });
  });
});

/**
 * Round trips and conditional reads of the audio routes (src/routes/media): the record in one D1 round trip, the
 * signed stream with R2's own range and onlyIf (304 on If-None-Match with the file's ETag, 206, 416).
 */
describe("request-path", () => {
  let audioId: string;
  const bytes = bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 4000);
  const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

  beforeAll(async () => {
    const res = await uploadAudio(t, bytes, { fileName: "a.mp3" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(trips(res)).toBeLessThanOrEqual(3);
    audioId = res.body.data._id;
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
});
