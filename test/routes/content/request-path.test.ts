/**
 * Conditional requests and round trips of GET/PUT /document/{id}/content and /settings (src/routes/content):
 * a version-derived strong ETag, 304 on If-None-Match, If-Match meaning baseVersion (412, nothing written).
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
  // Spend the token's lastUsedAt touch outside the measured calls.
  await call("GET", "/me", { token: t.owner.token });
});

const newDoc = async (name: string) =>
  (await ok("POST", "/document", { token: t.owner.token, body: { projectId: t.projectId, name, type: "DOCUMENT" } }))
    .data._id as string;
const get = (id: string, headers: Record<string, string> = {}) =>
  call("GET", `/document/${id}/content`, { token: t.owner.token, headers });
const put = (id: string, body: unknown, headers: Record<string, string> = {}) =>
  call("PUT", `/document/${id}/content`, { token: t.owner.token, body, headers });
const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

describe("GET /document/{id}/content conditional", () => {
  it("carries a strong ETag that changes with each version, and answers 304 on If-None-Match", async () => {
    const id = await newDoc("Etag");
    const empty = await get(id);
    const etag0 = empty.headers.get("etag")!;
    expect(etag0).toMatch(/^"[^"]+"$/);
    expect((await get(id, { "if-none-match": etag0 })).status).toBe(304);

    const written = await put(id, { blocks: ["one"] });
    expect(written.status).toBe(200);
    const first = await get(id);
    const etag1 = first.headers.get("etag")!;
    expect(etag1).not.toBe(etag0);
    expect(written.headers.get("etag")).toBe(etag1);
    expect((await get(id, { "if-none-match": etag0 })).status).toBe(200);
    const notModified = await get(id, { "if-none-match": `"other", ${etag1}` });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get("etag")).toBe(etag1);
    expect(trips(notModified)).toBe(1);
    expect(trips(first)).toBe(1);
  });

  it("answers 404 rather than 304 to a caller who cannot read the document", async () => {
    const id = await newDoc("Hidden");
    const etag = (await get(id)).headers.get("etag")!;
    expectError(
      await call("GET", `/document/${id}/content`, { token: t.outsider.token, headers: { "if-none-match": etag } }),
      404,
      "NotFoundError",
    );
  });
});

describe("PUT /document/{id}/content If-Match", () => {
  it("writes when If-Match names the current version and refuses a stale one with 412, writing nothing", async () => {
    const id = await newDoc("IfMatch");
    const v0 = (await get(id)).headers.get("etag")!;
    const first = await put(id, { blocks: ["a"] }, { "if-match": v0 });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ data: { version: 1 } });
    expect(trips(first)).toBeLessThanOrEqual(3);

    const objectsBefore = (await env.BLOBS.list({ prefix: `content/${id}/` })).objects.length;
    expectError(await put(id, { blocks: ["stale"] }, { "if-match": v0 }), 412, "PreconditionFailedError");
    expect((await get(id)).body).toEqual({ data: { documentId: id, version: 1, blocks: ["a"] } });
    expect((await env.BLOBS.list({ prefix: `content/${id}/` })).objects.length).toBe(objectsBefore);

    const v1 = first.headers.get("etag")!;
    expect((await put(id, { blocks: ["b"] }, { "if-match": `"nope", ${v1}` })).status).toBe(200);
    expect((await put(id, { blocks: ["c"] }, { "if-match": "*" })).status).toBe(200);
    expect((await get(id)).body.data).toMatchObject({ version: 3, blocks: ["c"] });
  });

  it("compares If-Match strongly: the current tag marked weak (W/) is 412 and writes nothing", async () => {
    const id = await newDoc("Weak");
    const v0 = (await get(id)).headers.get("etag")!;
    expectError(await put(id, { blocks: ["weak"] }, { "if-match": `W/${v0}` }), 412, "PreconditionFailedError");
    expect((await get(id)).body).toEqual({ data: { documentId: id, version: 0, blocks: [] } });
  });

  it("lets exactly one of two concurrent writes with the same If-Match win; the other is 412", async () => {
    const id = await newDoc("Race");
    const etag = (await put(id, { blocks: ["base"] })).headers.get("etag")!;
    const results = await Promise.all([
      put(id, { blocks: ["x"] }, { "if-match": etag }),
      put(id, { blocks: ["y"] }, { "if-match": etag }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 412]);
    expect((await get(id)).body.data.version).toBe(2);
  });

  it("checks access before the precondition: a viewer is 403, an outsider 404", async () => {
    const id = await newDoc("Access");
    const etag = (await get(id)).headers.get("etag")!;
    expectError(
      await call("PUT", `/document/${id}/content`, {
        token: t.viewer.token,
        body: { blocks: [] },
        headers: { "if-match": etag },
      }),
      403,
      "ForbiddenError",
    );
    expectError(
      await call("PUT", `/document/${id}/content`, {
        token: t.outsider.token,
        body: { blocks: [] },
        headers: { "if-match": '"x"' },
      }),
      404,
      "NotFoundError",
    );
  });
});

describe("document settings", () => {
  it("reads in one round trip and writes in at most three", async () => {
    const id = await newDoc("Settings");
    const read = await call("GET", `/document/${id}/settings`, { token: t.owner.token });
    expect(read.body).toEqual({ data: { listTemplateId: "", importedTermId: "" } });
    expect(trips(read)).toBe(1);
    const write = await call("PUT", `/document/${id}/settings`, {
      token: t.owner.token,
      body: { listTemplateId: "L" },
    });
    expect(write.body).toEqual({ data: { listTemplateId: "L", importedTermId: "" } });
    expect(trips(write)).toBeLessThanOrEqual(3);
    expectError(await call("GET", `/document/${id}/settings`, { token: t.outsider.token }), 404, "NotFoundError");
  });
});
