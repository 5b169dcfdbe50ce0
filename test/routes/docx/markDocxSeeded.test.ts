/** markDocxSeeded: POST /document/docx/{documentId}/mark-seeded (src/routes/docx/markSeeded.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import { call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { docxBytes, DOCX_TYPE } from "../../support/content-fixtures";

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
