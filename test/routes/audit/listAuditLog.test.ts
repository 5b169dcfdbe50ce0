/**
 * listAuditLog: GET /organization/{organizationId}/audit (src/routes/audit/list.ts; docs/api-guide.md › Changes,
 * history and audit) — the entries each audited write and security event records (once, with its actor, token id
 * and client address; nothing for a write that changes nothing), the filters and paging, retention, and the log
 * refused as absence (404) to everyone but the organization's owners and admins.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { pruneAuditLog } from "../../../src/services/changes/prune";
import { call, expectError, ok, registerUser, seedTenant, uniqueEmail, type Tenant } from "../../support/harness";
import { eventually } from "../../support/automations";
import { seedPortalFor } from "../../support/portals";
import { shardD1 } from "../../support/shards";

let t: Tenant;
let ownerTokenId: string;
beforeAll(async () => {
  t = await seedTenant();
  const tokens = await ok("GET", "/token/all", { token: t.owner.token });
  ownerTokenId = tokens.data[0]._id;
});

const IP = "203.0.113.9";
const as = (token: string) => ({ token, headers: { "cf-connecting-ip": IP } });
const audit = (query = "", token = t.owner.token, org = t.organizationId) =>
  call("GET", `/organization/${org}/audit${query ? `?${query}` : ""}`, { token });

/** The organization's entries of `kind` (exact, or `family.*`) at or after `from`, oldest first. */
async function entries(kind: string, from: number, org = t.organizationId, token = t.owner.token) {
  const page = await ok("GET", `/organization/${org}/audit?kind=${kind}&from=${from}&limit=1000`, { token });
  return (page.data as any[]).reverse();
}

const byOwner = { type: "user", userId: "", tokenId: "" };
beforeAll(() => {
  byOwner.userId = t.owner.id;
  byOwner.tokenId = ownerTokenId;
});

describe("listAuditLog: what is recorded", () => {
  it("member.*: an organization member added, role changed, a no-op, a collaborator added and removed, an invitation", async () => {
    const from = Date.now();
    const newcomer = await registerUser("Newcomer");
    const member = `/organization/${t.organizationId}/member`;
    await ok("POST", member, { ...as(t.owner.token), body: { email: newcomer.email, role: "member" } });
    await ok("POST", member, { ...as(t.owner.token), body: { email: newcomer.email, role: "admin" } });
    await ok("POST", member, { ...as(t.owner.token), body: { email: newcomer.email, role: "admin" } });
    const collaborator = `/workspace/${t.workspaceId}/collaborator`;
    await ok("POST", collaborator, { ...as(t.owner.token), body: { email: newcomer.email, role: "viewer" } });
    await ok("POST", collaborator, { ...as(t.owner.token), body: { email: newcomer.email, role: "viewer" } });
    await ok("DELETE", `${collaborator}/${newcomer.id}`, as(t.owner.token));
    const stranger = uniqueEmail("invited");
    await ok("POST", member, { ...as(t.owner.token), body: { email: stranger, role: "member" } });
    // The invited email registers: the membership it takes up names the new user as its actor.
    const joined = await registerUser("Joined", stranger);
    const got = await entries("member.*", from);
    expect(got.map((e) => [e.kind, e.recordId, e.workspaceId])).toEqual([
      ["member.added", newcomer.id, null],
      ["member.role_changed", newcomer.id, null],
      ["member.added", newcomer.id, t.workspaceId],
      ["member.removed", newcomer.id, t.workspaceId],
      ["member.invited", t.organizationId, null],
      ["member.added", joined.id, null],
    ]);
    expect(got.pop()).toMatchObject({
      actor: { type: "user", userId: joined.id },
      changes: { role: { after: "member" } },
    });
    for (const e of got)
      expect(e).toMatchObject({ actor: byOwner, clientAddress: IP, organizationId: t.organizationId });
    expect(got[1].changes).toEqual({ role: { before: "member", after: "admin" } });
    expect(got[3].changes).toEqual({ role: { before: "viewer", after: null } });
    expect(got[4].changes).toEqual({
      email: { before: null, after: stranger },
      role: { before: null, after: "member" },
    });
  });

  it("share.invited: a document shared by email, with whom and the role", async () => {
    const from = Date.now();
    const email = uniqueEmail("share");
    await ok("POST", "/document/invite-user", {
      ...as(t.editor.token),
      body: { documentId: t.docId, email, role: "viewer" },
    });
    const [e, ...rest] = await entries("share.*", from);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({
      kind: "share.invited",
      recordId: t.docId,
      workspaceId: t.workspaceId,
      projectId: t.projectId,
      actor: { type: "user", userId: t.editor.id },
      clientAddress: IP,
      changes: { email: { before: null, after: email }, role: { before: null, after: "viewer" } },
    });
  });

  it("portal.*: published, settings and password changed, branding (a same-value PUT records nothing), unpublished, a failed login", async () => {
    const from = Date.now();
    const p = await seedPortalFor(t, {});
    const entry = `/project/${p.projectId}/publish/${p.slug}`;
    await ok("PATCH", entry, { ...as(t.owner.token), body: { allowIndexing: true, password: "s3cret" } });
    await ok("PATCH", entry, { ...as(t.owner.token), body: { allowIndexing: true } });
    const branding = { company: { name: "Acme" } };
    await ok("PUT", `/project/${p.projectId}/branding`, { ...as(t.owner.token), body: branding });
    await ok("PUT", `/project/${p.projectId}/branding`, { ...as(t.owner.token), body: branding });
    const wrong = await call("POST", `/published/${p.projectId}/login`, {
      token: t.outsider.token,
      body: { password: "nope" },
      headers: { "cf-connecting-ip": "198.51.100.4" },
    });
    expect(wrong.status).toBe(401);
    await ok("DELETE", entry, as(t.owner.token));
    // The failed login is recorded after its response: waited for; the writes' entries are in their batches.
    const got = await eventually(async () => {
      // The portal's documents were published one by one too (portal.document_published): not what this test reads.
      const list = (await entries("portal.*", from)).filter((e) => !e.kind.startsWith("portal.document_"));
      return list.some((e) => e.kind === "portal.login_failed") && list;
    });
    expect(got.map((e) => e.kind).sort()).toEqual([
      "portal.branding_changed",
      "portal.login_failed",
      "portal.published",
      "portal.unpublished",
      "portal.updated",
    ]);
    expect(got.filter((e) => e.kind === "portal.login_failed")).toHaveLength(1);
    expect(got.filter((e) => e.kind !== "portal.login_failed").every((e) => e.recordId === p.projectId)).toBe(true);
    const of = (kind: string) => got.find((e) => e.kind === kind);
    expect(of("portal.published").changes.slug).toEqual({ before: null, after: p.slug });
    expect(of("portal.updated").changes).toMatchObject({
      allowIndexing: { before: false, after: true },
      password: { before: null, after: "********" },
    });
    expect(of("portal.branding_changed").changes.branding.after).toMatchObject(branding);
    expect(of("portal.unpublished").changes).toEqual({ slug: { before: p.slug, after: null } });
    expect(of("portal.login_failed")).toMatchObject({
      // Who tried: the caller of the login (a user here, who sent a token; `portal` for a reader without one).
      actor: { type: "user", userId: t.outsider.id },
      clientAddress: "198.51.100.4",
      projectId: p.projectId,
    });
  });

  it("portal.document_published / _unpublished: a document's own publication; publishing it again records nothing", async () => {
    const from = Date.now();
    await ok("POST", `/document/${t.doc2Id}/publish`, { ...as(t.owner.token), body: {} });
    await ok("POST", `/document/${t.doc2Id}/publish`, { ...as(t.owner.token), body: {} });
    await ok("DELETE", `/document/${t.doc2Id}/publish`, as(t.owner.token));
    const got = await entries("portal.*", from);
    expect(got.map((e) => [e.kind, e.recordId])).toEqual([
      ["portal.document_published", t.doc2Id],
      ["portal.document_unpublished", t.doc2Id],
    ]);
    expect(got[0]).toMatchObject({ actor: byOwner, clientAddress: IP, projectId: t.projectId });
  });

  it("automation.*: created, updated (only what changed), deleted; a PATCH changing nothing records nothing", async () => {
    const from = Date.now();
    const created = await ok("POST", "/automation", {
      ...as(t.owner.token),
      body: { projectId: t.projectId, name: "Audited", triggers: [], actions: [] },
    });
    const id = created.data._id;
    await ok("PATCH", `/automation/${id}`, { ...as(t.owner.token), body: { name: "Renamed" } });
    await ok("PATCH", `/automation/${id}`, { ...as(t.owner.token), body: { name: "Renamed" } });
    await ok("DELETE", `/automation/${id}`, as(t.owner.token));
    const got = await entries("automation.*", from);
    expect(got.map((e) => [e.kind, e.recordId])).toEqual([
      ["automation.created", id],
      ["automation.updated", id],
      ["automation.deleted", id],
    ]);
    expect(got[1].changes).toEqual({ name: { before: "Audited", after: "Renamed" } });
    expect(JSON.stringify(got)).not.toContain(created.data.webhookSecret ?? "no secret shown");
    for (const e of got) expect(e).toMatchObject({ actor: byOwner, clientAddress: IP, projectId: t.projectId });
  });

  it("token.created and token.revoked, with the token used and the client address", async () => {
    const from = Date.now();
    const made = await ok("POST", "/token", { ...as(t.owner.token), body: { name: "audited" } });
    await ok("DELETE", `/token/${made.data._id}`, as(t.owner.token));
    const got = await eventually(async () => {
      const list = await entries("token.*", from);
      return list.length >= 2 && list;
    });
    expect(got.map((e) => [e.kind, e.recordId])).toEqual([
      ["token.created", made.data._id],
      ["token.revoked", made.data._id],
    ]);
    for (const e of got) expect(e).toMatchObject({ actor: byOwner, clientAddress: IP });
  });

  it("export.*: a Markdown export, once, with the reader and the client address", async () => {
    const from = Date.now();
    await ok("GET", `/document/${t.docId}/export.md`, as(t.viewer.token));
    const got = await eventually(async () => {
      const list = await entries("export.*", from);
      return list.length >= 1 && list;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(await entries("export.*", from)).toHaveLength(1);
    expect(got[0]).toMatchObject({
      kind: "export.markdown",
      recordId: t.docId,
      actor: { type: "user", userId: t.viewer.id },
      clientAddress: IP,
    });
  });

  it("admin.user_created: the registration, in the new organization's log", async () => {
    const user = await registerUser("Registered");
    const page = await eventually(async () => {
      const p = await ok("GET", `/organization/${user.organizationId}/audit?kind=admin.*`, { token: user.token });
      return p.data.length >= 1 && p;
    });
    expect(page.data).toHaveLength(1);
    expect(page.data[0]).toMatchObject({ kind: "admin.user_created", recordId: user.id, actor: { type: "system" } });
  });
});

describe("listAuditLog: reading", () => {
  it("newest first, paged by nextCursor (each entry once); filters by actor, kind, from and to", async () => {
    const from = Date.now();
    for (const name of ["A1", "A2", "A3"])
      await ok("POST", "/automation", { token: t.owner.token, body: { projectId: t.projectId, name } });
    await ok("POST", "/automation", { token: t.editor.token, body: { projectId: t.projectId, name: "E1" } });
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await ok("GET", `/organization/${t.organizationId}/audit`, {
        token: t.owner.token,
        query: { kind: "automation.created", from, limit: 2, ...(cursor && { cursor }) },
      });
      expect(page.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.data);
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen.map((e) => e.changes.name.after)).toEqual(["E1", "A3", "A2", "A1"]);
    const byEditor = await ok("GET", `/organization/${t.organizationId}/audit?from=${from}&actor=${t.editor.id}`, {
      token: t.owner.token,
    });
    expect(byEditor.data.map((e: any) => e.kind)).toEqual(["automation.created"]);
    const before = await ok("GET", `/organization/${t.organizationId}/audit?kind=automation.created&to=${from}`, {
      token: t.owner.token,
    });
    expect(before.data.every((e: any) => e.at < from)).toBe(true);
    expect(before.data.map((e: any) => e.changes.name.after)).not.toContain("A1");
  });

  it("the organization's change-log entries are in it too (a new document)", async () => {
    const from = Date.now();
    const doc = await ok("POST", "/document", {
      token: t.owner.token,
      body: { projectId: t.projectId, name: "Logged", type: "DOCUMENT" },
    });
    const got = await entries("document.created", from);
    expect(got.map((e) => e.recordId)).toContain(doc.data._id);
    expect(got[0]).toMatchObject({ source: "api", clientAddress: null });
  });

  it("a cursor this log did not return, or a malformed filter, is 400", async () => {
    expectError(await audit("cursor=nope"), 400, "ValidationError");
    expectError(await audit("kind=Member%20added"), 400, "ValidationError");
    expectError(await audit("from=yesterday"), 400, "ValidationError");
  });

  it("keeps AUDIT_RETENTION_DAYS (90): an entry older is pruned by the upkeep, today's stay", async () => {
    await shardD1(t.organizationId)
      .prepare(
        `INSERT INTO audit_log (organization_id, seq, at, kind, record_id, actor) VALUES (?1, 0, ?2, 'admin.old', 'old-entry', '{"type":"system"}')`,
      )
      .bind(t.organizationId, Date.now() - 91 * 86_400_000)
      .run();
    expect((await entries("admin.old", 0)).map((e) => e.recordId)).toEqual(["old-entry"]);
    const kept = (await entries("member.*", 0)).length;
    expect(await pruneAuditLog(env, Date.now())).toBeGreaterThanOrEqual(1);
    expect(await entries("admin.old", 0)).toEqual([]);
    expect((await entries("member.*", 0)).length).toBe(kept);
  });
});

describe("listAuditLog: only owners and admins (anyone else: 404)", () => {
  it("refuses editors, viewers, other organizations' owners and scoped tokens outside the organization; an admin reads it", async () => {
    for (const token of [t.editor.token, t.viewer.token, t.outsider.token])
      expectError(await audit("", token), 404, "NotFoundError");
    const other = await registerUser("Other owner");
    expectError(await audit("", other.token), 404, "NotFoundError");
    // The owner is a member of another organization too, and limits a token to that one.
    await ok("POST", `/organization/${other.organizationId}/member`, {
      token: other.token,
      body: { email: t.owner.email, role: "admin" },
    });
    const elsewhere = await ok("POST", "/token", {
      token: t.owner.token,
      body: { name: "elsewhere", resources: [other.organizationId] },
    });
    expect(
      (await call("GET", `/organization/${other.organizationId}/audit`, { token: elsewhere.data.token })).status,
    ).toBe(200);
    expect((await audit("", elsewhere.data.token)).status).toBe(404);
    const unscoped = await ok("POST", "/token", {
      token: t.owner.token,
      body: { name: "read", scopes: ["changes:read"] },
    });
    expect([403, 404]).toContain((await audit("", unscoped.data.token)).status);
    const admin = await registerUser("Org admin");
    await ok("POST", `/organization/${t.organizationId}/member`, {
      token: t.owner.token,
      body: { email: admin.email, role: "admin" },
    });
    expect(
      (await ok("GET", `/organization/${t.organizationId}/audit`, { token: admin.token })).data.length,
    ).toBeGreaterThan(0);
    expectError(await audit("", null as never), 401, "UnauthorizedError");
  });
});
