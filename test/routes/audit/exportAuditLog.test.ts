/**
 * exportAuditLog: GET /organization/{organizationId}/audit/export (src/routes/audit/export.ts; docs/api-guide.md ›
 * Changes, history and audit) — JSON Lines of the entries GET …/audit answers, the same filters, streamed page by
 * page past one page; refused as absence (404) to everyone but owners and admins.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, registerUser, type RegisteredUser } from "../../support/harness";
import { shardD1 } from "../../support/shards";

let owner: RegisteredUser;
beforeAll(async () => {
  owner = await registerUser("Export owner");
});

async function exportLines(query: string, token = owner.token) {
  const res = await SELF.fetch(`${BASE}/organization/${owner.organizationId}/audit/export${query}`, {
    headers: { authorization: `Bearer ${token}`, "cf-connecting-ip": "192.0.2.1" },
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^application\/x-ndjson/);
  const text = new TextDecoder().decode(await res.arrayBuffer());
  expect(text === "" || text.endsWith("\n")).toBe(true);
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe("exportAuditLog", () => {
  it("JSON Lines of the same entries GET …/audit answers, with its filters", async () => {
    const member = await registerUser("Exported member");
    const path = `/organization/${owner.organizationId}/member`;
    await ok("POST", path, { token: owner.token, body: { email: member.email, role: "member" } });
    await ok("POST", path, { token: owner.token, body: { email: member.email, role: "admin" } });
    const listed = await ok("GET", `/organization/${owner.organizationId}/audit?limit=1000`, { token: owner.token });
    expect(listed.data.length).toBeGreaterThanOrEqual(2);
    expect(await exportLines("")).toEqual(listed.data);
    const members = await exportLines("?kind=member.*");
    expect(members.map((e) => e.kind)).toEqual(["member.role_changed", "member.added"]);
  });

  it("streams past one page (500): every entry once, newest first", async () => {
    // 1,200 entries written straight into the organization's log, one `at` apart.
    const d1 = shardD1(owner.organizationId);
    const base = Date.now() - 60_000;
    await d1
      .prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1200)
         INSERT INTO audit_log (organization_id, seq, at, kind, record_id, actor)
         SELECT ?1, 100000 + i, ?2 + i, 'admin.bulk', 'r' || i, '{"type":"system"}' FROM n`,
      )
      .bind(owner.organizationId, base)
      .run();
    const lines = await exportLines("?kind=admin.bulk");
    expect(lines).toHaveLength(1200);
    expect(lines[0].recordId).toBe("r1200");
    expect(lines.at(-1).recordId).toBe("r1");
    expect(new Set(lines.map((e) => e.recordId)).size).toBe(1200);
  });

  it("refused (404) to members who are not owners or admins, and to outsiders", async () => {
    const member = await registerUser("Plain member");
    await ok("POST", `/organization/${owner.organizationId}/member`, {
      token: owner.token,
      body: { email: member.email, role: "member" },
    });
    const outsider = await registerUser("Outsider");
    for (const token of [member.token, outsider.token])
      expectError(
        await call("GET", `/organization/${owner.organizationId}/audit/export`, { token }),
        404,
        "NotFoundError",
      );
  });
});
