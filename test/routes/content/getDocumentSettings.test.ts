/** getDocumentSettings: GET /document/{documentId}/settings (src/routes/content/getSettings.ts) — its happy path, errors and request-path checks. */
/**
 * Conditional requests and round trips of GET/PUT /document/{id}/content and /settings (src/routes/content):
 * a version-derived strong ETag, 304 on If-None-Match, If-Match meaning baseVersion (412, nothing written).
 */
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
const trips = (res: { headers: Headers }) => Number(res.headers.get("x-d1-round-trips"));

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
