import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, registerUser, seedTenant, type Tenant } from "../support/harness";
import { caseFactories } from "./registry";
import type { SecurityCase } from "./types";
import { ANY_SCOPE, NO_USER_TOKEN, scopeOf } from "../../src/auth/scopes";

type OpenApi = { paths: Record<string, Record<string, { operationId?: string }>> };

/** The operation a case calls: the OpenAPI path template that matches its path, the most specific one first. */
function operationOf(doc: OpenApi, c: SecurityCase): string | undefined {
  const path = c.path.split("?")[0]!;
  const matches = Object.entries(doc.paths)
    .filter(([template]) => new RegExp(`^${template.replace(/\{[^}]+\}/g, "[^/]+")}$`).test(path))
    .sort(([a], [b]) => b.replace(/\{[^}]+\}/g, "").length - a.replace(/\{[^}]+\}/g, "").length);
  for (const [, ops] of matches) {
    const op = ops[c.method.toLowerCase()]?.operationId;
    if (op) return op;
  }
  return undefined;
}

/**
 * The shared security suite: every route, every way of not being allowed. No token, a bogus token and a
 * revoked token are 401; another tenant's valid token gets what the contract names (never 200 with data,
 * never 500); a viewer writing gets 403, and so does a commenter writing anything but comments.
 */
for (const [area, factory] of Object.entries(caseFactories)) {
  describe(`security: ${area}`, () => {
    let t: Tenant;
    let cases: SecurityCase[] = [];
    let revokedToken: string;
    /** The owner's tokens scoped to a family the case does not need (docs/api-guide.md › Tokens and scopes). */
    let wrongScope: Record<"comments" | "changes", string>;
    /** A workspace `commenter` (docs/api-guide.md › Comments): reads and comments, writes nothing else. */
    let commenter: string;
    let openapi: OpenApi;

    beforeAll(async () => {
      t = await seedTenant();
      cases = await factory(t);
      const extra = await registerUser("Revoked");
      const issued = await ok("POST", "/token", { token: extra.token, body: { name: "temp" } });
      await ok("DELETE", `/token/${issued.data._id}`, { token: extra.token });
      revokedToken = issued.data.token;
      const scoped = async (scope: string) =>
        (await ok("POST", "/token", { token: t.owner.token, body: { name: "wrong scope", scopes: [scope] } })).data
          .token as string;
      wrongScope = { comments: await scoped("comments:read"), changes: await scoped("changes:read") };
      const c = await registerUser("Commenter");
      await ok("POST", `/workspace/${t.workspaceId}/collaborator`, {
        token: t.owner.token,
        body: { email: c.email, role: "commenter" },
      });
      commenter = c.token;
      openapi = (await call("GET", "/openapi.json")).body as OpenApi;
    });

    const send = (c: SecurityCase, token: string | null) =>
      call(c.method, c.path, { token, body: c.body, raw: c.raw?.(), query: c.query, headers: c.headers });

    it("answers 401 without a token, with a bogus token and with a revoked token", async () => {
      expect(cases.length).toBeGreaterThan(0);
      for (const c of cases) {
        for (const token of [null, "cws_bogus0000000000000000000000000000000000", revokedToken]) {
          const res = await send(c, token);
          expect(res.status, `${c.name} with token ${token}`).toBe(401);
          expect(res.body.error, c.name).toBe("UnauthorizedError");
        }
      }
    });

    it("answers another tenant's user as the contract says", async () => {
      for (const c of cases) {
        const res = await send(c, t.outsider.token);
        const want = c.outsider ?? { status: 404, error: "NotFoundError" };
        expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(want.status);
        if (want.error) expect(res.body.error, c.name).toBe(want.error);
        if (want.body !== undefined) expect(res.body, c.name).toEqual(want.body);
      }
    });

    it("refuses the owner's token scoped to another family on every operation (403 naming the scope)", async () => {
      for (const c of cases) {
        const operationId = operationOf(openapi, c);
        expect(operationId, `${c.name}: no operation in the OpenAPI document`).toBeDefined();
        const needed = scopeOf(operationId!);
        if (needed === NO_USER_TOKEN || needed === ANY_SCOPE) continue;
        const res = await send(c, needed.startsWith("comments") ? wrongScope.changes : wrongScope.comments);
        expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(403);
        expect(res.body.details, c.name).toEqual([{ path: "scope", message: `needs ${needed}` }]);
      }
    });

    it("forbids a workspace commenter every write a viewer may not make, comments excepted", async () => {
      for (const c of cases.filter((x) => x.viewerForbidden)) {
        const needed = scopeOf(operationOf(openapi, c)!);
        if (typeof needed === "string" && needed.startsWith("comments")) continue;
        const res = await send(c, commenter);
        expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(403);
        expect(res.body.error, c.name).toBe("ForbiddenError");
      }
    });

    it.runIf(area === "comments")("lets a workspace commenter start and answer threads a viewer may not", async () => {
      const starts = ["createDocumentComment", "createRowComment", "replyToComment"];
      const threadCases = cases.filter((x) => x.viewerForbidden && starts.includes(operationOf(openapi, x)!));
      expect(threadCases.map((c) => operationOf(openapi, c)).sort()).toEqual([...starts].sort());
      for (const c of threadCases) {
        const res = await send(c, commenter);
        expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      }
    });

    it("forbids a workspace viewer to write", async () => {
      for (const c of cases.filter((x) => x.viewerForbidden)) {
        const res = await send(c, t.viewer.token);
        expect(res.status, `${c.name}: ${JSON.stringify(res.body)}`).toBe(403);
        expect(res.body.error, c.name).toBe("ForbiddenError");
      }
    });
  });
}
