/** createToken: POST /token (src/routes/tokens/create.ts) — its happy path, errors and request-path checks. */
import { beforeAll, describe, expect, it } from "vitest";
import {
  call,
  expectError,
  ok,
  seedTenant,
  type Tenant,
  registerUser,
  type RegisteredUser,
} from "../../support/harness";
import { OPERATION_SCOPES } from "../../../src/auth/scopes";

/**
 * Scoped tokens (docs/api-guide.md › Tokens and scopes): POST /token with `scopes` and `resources`, their rights the
 * intersection of scopes, resources and the user's rights; outside the scopes 403 naming the scope, outside the
 * resources 404; GET /token/all shows them; DELETE revokes. Through the real Worker in workerd.
 */
describe("scopes", () => {
  let t: Tenant;
  let otherProject: string;
  let otherDoc: string;
  beforeAll(async () => {
    t = await seedTenant();
    otherProject = (
      await ok("POST", "/project", { token: t.owner.token, body: { workspaceId: t.workspaceId, name: "B" } })
    ).data._id;
    otherDoc = (
      await ok("POST", "/document", {
        token: t.owner.token,
        body: { projectId: otherProject, name: "B doc", type: "DOCUMENT" },
      })
    ).data._id;
  });

  const issue = async (token: string, body: Record<string, unknown>) =>
    (await ok("POST", "/token", { token, body: { name: "scoped", ...body } })).data as {
      _id: string;
      token: string;
      scopes: string[] | null;
      resources: string[] | null;
    };

  describe("scoped tokens", () => {
    it("reads with documents:read, refuses a write with 403 naming the missing scope", async () => {
      const s = await issue(t.owner.token, { scopes: ["documents:read"] });
      expect(s.scopes).toEqual(["documents:read"]);
      expect(s.resources).toBeNull();
      expect((await call("GET", `/document/${t.docId}`, { token: s.token })).status).toBe(200);
      const refused = await call("POST", "/document", {
        token: s.token,
        body: { projectId: t.projectId, name: "nope", type: "DOCUMENT" },
      });
      expectError(refused, 403, "ForbiddenError");
      expect(refused.body.details).toEqual([{ path: "scope", message: "needs documents:write" }]);
      const table = await call("POST", "/table", { token: s.token, body: { projectId: t.projectId, name: "T" } });
      expectError(table, 403, "ForbiddenError");
      expect(table.body.details).toEqual([{ path: "scope", message: "needs tables:write" }]);
      // Nothing was written by the refused calls.
      const docs = (await ok("GET", `/document/all/${t.projectId}`, { token: t.owner.token })).data as {
        name: string;
      }[];
      expect(docs.some((d) => d.name === "nope")).toBe(false);
    });

    it("write implies read; the user's own rights still bound a scoped token (a viewer's write scope is still 403)", async () => {
      const s = await issue(t.owner.token, { scopes: ["tables:write"] });
      const table = (await ok("POST", "/table", { token: s.token, body: { projectId: t.projectId, name: "Scoped" } }))
        .data;
      expect((await call("GET", `/table/${table._id}`, { token: s.token })).status).toBe(200);
      expectError(await call("GET", `/document/${t.docId}`, { token: s.token }), 403, "ForbiddenError");
      const viewer = await issue(t.viewer.token, { scopes: ["documents:write"] });
      expectError(
        await call("PATCH", `/document/${t.docId}`, { token: viewer.token, body: { name: "renamed" } }),
        403,
        "ForbiddenError",
      );
    });

    it("limits a token to its resources: a record elsewhere is 404 as a missing one", async () => {
      const s = await issue(t.owner.token, { scopes: ["documents:read"], resources: [t.projectId] });
      expect(s.resources).toEqual([t.projectId]);
      expect((await call("GET", `/document/${t.docId}`, { token: s.token })).status).toBe(200);
      // GET /document answers E10's not-found shape: exactly what an outsider gets.
      const limited = await call("GET", `/document/${otherDoc}`, { token: s.token });
      const outsider = await call("GET", `/document/${otherDoc}`, { token: t.outsider.token });
      expect([limited.status, limited.body]).toEqual([outsider.status, outsider.body]);
      expect(limited.body.data?.name).toBeUndefined();
      expectError(await call("GET", `/document/${otherDoc}/content`, { token: s.token }), 404, "NotFoundError");
      expectError(await call("GET", `/project/${otherProject}`, { token: s.token }), 404, "NotFoundError");
      // A workspace or organization resource reaches everything inside it.
      const ws = await issue(t.owner.token, { scopes: ["documents:read"], resources: [t.workspaceId] });
      expect((await call("GET", `/document/${otherDoc}`, { token: ws.token })).status).toBe(200);
      const org = await issue(t.owner.token, { scopes: ["documents:read"], resources: [t.organizationId] });
      expect((await call("GET", `/document/${otherDoc}`, { token: org.token })).status).toBe(200);
    });

    it("limits search to the token's resources: a hit elsewhere is left out, as a record one cannot read", async () => {
      const word = `quillzebra${Date.now().toString(36)}`;
      for (const projectId of [t.projectId, otherProject])
        await ok("POST", "/document", { token: t.owner.token, body: { projectId, name: word, type: "DOCUMENT" } });
      const hits = async (token: string) =>
        ((await ok("GET", "/search", { token, query: { q: word } })).data as { projectId: string }[])
          .map((h) => h.projectId)
          .sort();
      expect(await hits(t.owner.token)).toEqual([t.projectId, otherProject].sort());
      const s = await issue(t.owner.token, { scopes: ["documents:read"], resources: [t.projectId] });
      expect(await hits(s.token)).toEqual([t.projectId]);
    });

    it("refuses unknown scopes and resources the caller cannot read (400), and a scoped token cannot mint a broader one", async () => {
      expectError(
        await call("POST", "/token", { token: t.owner.token, body: { name: "x", scopes: ["rows:read"] } }),
        400,
        "ValidationError",
      );
      const outsider = await call("POST", "/token", {
        token: t.outsider.token,
        body: { name: "x", scopes: ["documents:read"], resources: [t.projectId] },
      });
      expectError(outsider, 400, "ValidationError");
      const admin = await issue(t.owner.token, { scopes: ["admin", "documents:read"], resources: [t.projectId] });
      const broader = await call("POST", "/token", {
        token: admin.token,
        body: { name: "x", scopes: ["documents:write"] },
      });
      expectError(broader, 403, "ForbiddenError");
      expect(broader.body.details).toEqual([{ path: "scope", message: "needs documents:write" }]);
      const inherited = await issue(admin.token, {});
      expect(inherited.scopes).toEqual(["admin", "documents:read"]);
      expect(inherited.resources).toEqual([t.projectId]);
      // Token management itself needs admin.
      const reader = await issue(t.owner.token, { scopes: ["documents:read"] });
      expectError(await call("GET", "/token/all", { token: reader.token }), 403, "ForbiddenError");
    });

    it("declares a scope for every operation of the OpenAPI document", async () => {
      const doc = (await call("GET", "/openapi.json")).body as {
        paths: Record<string, Record<string, { operationId?: string }>>;
      };
      const missing: string[] = [];
      for (const ops of Object.values(doc.paths))
        for (const op of Object.values(ops))
          if (op.operationId && !OPERATION_SCOPES.has(op.operationId)) missing.push(op.operationId);
      expect(missing).toEqual([]);
    });
  });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("tokens", () => {
  let u: RegisteredUser;
  beforeAll(async () => {
    u = await registerUser("Tokens");
  });

  it("accepts a future expiresAt and refuses a past one (400)", async () => {
    const expiresAt = Date.now() + 3_600_000;
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "short", expiresAt } });
    expect(issued.data.expiresAt).toBe(expiresAt);
    await ok("GET", "/me", { token: issued.data.token });

    const past = await call("POST", "/token", { token: u.token, body: { name: "old", expiresAt: Date.now() - 1000 } });
    expectError(past, 400, "ValidationError");
    expect(past.body.details.map((d: any) => d.path)).toEqual(["expiresAt"]);
    expectError(
      await call("POST", "/token", { token: u.token, body: { name: "x", expiresAt: "tomorrow" } }),
      400,
      "ValidationError",
    );
    expectError(await call("POST", "/token", { token: u.token, body: { name: "" } }), 400, "ValidationError");
    expectError(await call("POST", "/token", { token: u.token, body: {} }), 400, "ValidationError");
    const unknown = await call("POST", "/token", { token: u.token, body: { name: "x", permissions: ["all"] } });
    expectError(unknown, 400, "ValidationError");
    expect(unknown.body.details.map((d: any) => d.path)).toEqual(["permissions"]);
    // An unknown scope is named by its place in the list (docs/api-guide.md › Tokens and scopes).
    const badScope = await call("POST", "/token", { token: u.token, body: { name: "x", scopes: ["all"] } });
    expect(badScope.body.details.map((d: any) => d.path)).toEqual(["scopes.0"]);
  });

  it("answers 401 for a token once it has expired", async () => {
    const issued = await ok("POST", "/token", {
      token: u.token,
      body: { name: "brief", expiresAt: Date.now() + 1200 },
    });
    await ok("GET", "/me", { token: issued.data.token });
    await sleep(1500);
    const res = await call("GET", "/me", { token: issued.data.token });
    expectError(res, 401, "UnauthorizedError");
    // The user's other token is unaffected.
    await ok("GET", "/me", { token: u.token });
  });

  it("a token can revoke itself; the very next call is 401", async () => {
    const issued = await ok("POST", "/token", { token: u.token, body: { name: "self" } });
    await ok("DELETE", `/token/${issued.data._id}`, { token: issued.data.token });
    expectError(await call("GET", "/token/all", { token: issued.data.token }), 401, "UnauthorizedError");
  });
});
