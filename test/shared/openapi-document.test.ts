import { beforeAll, describe, expect, it } from "vitest";
import { SELF } from "cloudflare:test";
import { BASE, call, registerUser } from "../support/harness";
import { undescribed } from "../support/openapi-check";

/** docs/api-guide.md › Discovery's document-wide rules that Spectral/Redocly (npm run lint:openapi) would also flag. */
describe("/openapi.json for client developers", () => {
  let doc: any;
  const operations: { where: string; op: any }[] = [];
  beforeAll(async () => {
    doc = (await call("GET", "/openapi.json")).body;
    for (const [path, item] of Object.entries<any>(doc.paths))
      for (const [m, op] of Object.entries<any>(item)) operations.push({ where: `${m.toUpperCase()} ${path}`, op });
  });

  it("declares every tag an operation uses, each with a description", () => {
    const declared = new Map<string, string>(doc.tags.map((t: any) => [t.name, t.description]));
    for (const { where, op } of operations) {
      expect(op.tags?.length, where).toBeGreaterThan(0);
      for (const tag of op.tags) expect(declared.get(tag), `${where}: tag ${tag}`).toMatch(/\w/);
    }
  });

  it("names its servers", () => {
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: "/", description: expect.stringMatching(/development|production/) }),
    ]);
  });

  it("every operation has a unique camelCase operationId", () => {
    const ids = operations.map((o) => o.op.operationId);
    for (const { where, op } of operations) expect(op.operationId, where).toMatch(/^[a-z][a-zA-Z0-9]+$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("every authenticated operation documents 401 and 429 with Retry-After", () => {
    for (const { where, op } of operations) {
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      expect(op.responses["401"], where).toBeDefined();
      expect(op.responses["429"]?.headers?.["Retry-After"], where).toBeDefined();
    }
  });

  // The statuses a route answers because of how it is declared (src/http/route.ts, centralResponses).
  it("every operation with a JSON body lists 400, 413 and 415; every credentialed POST documents its Idempotency-Key header and lists 409 and 422", () => {
    for (const { where, op } of operations) {
      if (op.requestBody?.content?.["application/json"])
        for (const status of ["400", "413", "415"]) expect(op.responses[status], `${where} ${status}`).toBeDefined();
      const credentialed = !(Array.isArray(op.security) && op.security.length === 0);
      if (!where.startsWith("POST ") || !credentialed) continue;
      for (const status of ["400", "409", "422"]) expect(op.responses[status], `${where} ${status}`).toBeDefined();
      expect(op.parameters, where).toContainEqual(
        expect.objectContaining({
          name: "Idempotency-Key",
          in: "header",
          schema: expect.objectContaining({ maxLength: 255 }),
        }),
      );
    }
  });

  it("POST /project without Content-Type answers 415 and POST /document a reused Idempotency-Key 422, both listed", async () => {
    const user = await registerUser();
    const noType = await call("POST", "/project", {
      token: user.token,
      raw: JSON.stringify({ workspaceId: user.workspaceId, name: "P" }),
    });
    expect(noType.status).toBe(415);
    expect(doc.paths["/project"].post.responses["415"]).toBeDefined();
    const project = await call("POST", "/project", {
      token: user.token,
      body: { workspaceId: user.workspaceId, name: "P" },
    });
    const key = { "idempotency-key": `reuse-${crypto.randomUUID()}` };
    const first = await call("POST", "/document", {
      token: user.token,
      headers: key,
      body: { projectId: project.body.data._id, name: "A", type: "DOCUMENT" },
    });
    expect(first.status).toBe(200);
    const reused = await call("POST", "/document", {
      token: user.token,
      headers: key,
      body: { projectId: project.body.data._id, name: "B", type: "DOCUMENT" },
    });
    expect(reused.status).toBe(422);
    expect(doc.paths["/document"].post.responses["422"]).toBeDefined();
  });

  // The check every answer of the suite goes through (test/setup/openapi-responses.ts) finds what it must.
  it("the answer checker refuses an unlisted status and a body off its schema, and passes a real answer", async () => {
    const fetch = SELF.fetch.bind(SELF);
    const me = new URL("/me", BASE);
    const json = (body: unknown, status: number) =>
      new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
    expect(await undescribed(fetch, "GET", me, json({ error: "Teapot", message: "no" }, 418))).toEqual([
      expect.stringContaining("status not listed"),
    ]);
    expect(await undescribed(fetch, "GET", me, json({ data: { _id: 1 } }, 200))).toEqual([
      expect.stringContaining("does not match the schema"),
    ]);
    expect(
      await undescribed(
        fetch,
        "GET",
        me,
        new Response("<p>hi</p>", { status: 200, headers: { "content-type": "text/html" } }),
      ),
    ).toEqual([expect.stringContaining("content type text/html not listed")]);
    const user = await registerUser();
    const real = await SELF.fetch(me, { headers: { authorization: `Bearer ${user.token}` } });
    expect(real.status).toBe(200);
    expect(await undescribed(fetch, "GET", me, real)).toEqual([]);
    // The router's own answers for what the document does not name are not an operation's.
    expect(await undescribed(fetch, "GET", new URL("/no-such-path", BASE), json({}, 404))).toEqual([]);
  });

  it("path ids are bounded", () => {
    for (const { where, op } of operations) {
      for (const p of op.parameters ?? []) {
        if (p.in !== "path" || p.schema?.type !== "string") continue;
        // E17 answers any orgId with 200 and [] (never 400), so it carries no maxLength (see .spectral.yaml).
        if (where === "GET /workspace/all/{orgId}") continue;
        expect(p.schema.maxLength ?? p.schema.enum, `${where} ${p.name}`).toBeDefined();
      }
    }
  });
});
