import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ADMIN_TOKEN,
  call,
  expectError,
  ok,
  registerUser,
  seedTenant,
  uniqueEmail,
  type RegisteredUser,
  type Tenant,
} from "../support/harness";
import { caseFactories } from "../security/registry";
import { everyShardD1, shardD1 } from "../support/shards";
import { makeTable, type TestTable } from "../support/tableHarness";
import { AUDIO_HEADS, DOCX_TYPE, bytesWithHead, docxBytes } from "../support/content-fixtures";

/**
 * The kept record of (caller, key), read straight from D1 (what someone with the database would see): `db` is the
 * database of the claim — the directory for a route about no one organization (/token, /admin/users), the
 * organization's shard database for one about an organization (docs/scaling.md).
 */
async function kept(db: D1Database, callerId: string, key: string) {
  return db
    .prepare("SELECT claim, status, body, created_at AS createdAt FROM idempotency_keys WHERE user_id = ? AND key = ?")
    .bind(callerId, key)
    .first<{ claim: string; status: number | null; body: string | null; createdAt: number }>();
}

async function rowCount(tableId: string) {
  return (await shardD1(tableId)
    .prepare("SELECT COUNT(*) AS n FROM rows WHERE table_id = ? AND is_deleted = 0")
    .bind(tableId)
    .first<{ n: number }>())!.n;
}

describe("secrets sealed in kept responses (docs/api-guide.md, HTTP semantics)", () => {
  it("keeps a keyed POST /token's answer sealed at rest, and replays the secret to its caller", async () => {
    const u = await registerUser("Sealer");
    const key = `seal-${crypto.randomUUID()}`;
    const first = await ok("POST", "/token", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { name: "ci" },
    });
    const secret = first.data.token as string;
    const record = await kept(env.DB, u.id, key);
    expect(record?.status).toBe(200);
    expect(record!.body).not.toContain(secret);
    expect(record!.body).not.toContain(secret.slice(4, 24));
    expect(record!.body).toMatch(/^sealed:v1:/);
    const again = await call("POST", "/token", {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { name: "ci" },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.token).toBe(secret);
  });

  it("keeps a keyed POST /automation's answer (with its webhook secret) sealed at rest", async () => {
    const u = await registerUser("Automator");
    const project = await ok("POST", "/project", {
      token: u.token,
      body: { workspaceId: u.workspaceId, name: "Hooks" },
    });
    const key = `seal-automation-${crypto.randomUUID()}`;
    const body = {
      projectId: project.data._id,
      name: "Notify",
      triggers: [{}],
      actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }],
    };
    const first = await ok("POST", "/automation", { token: u.token, headers: { "idempotency-key": key }, body });
    const secret = first.data.webhookSecret as string;
    expect(secret).toMatch(/^whsec_/);
    const record = await kept(shardD1(project.data._id), u.id, key);
    expect(record?.status).toBe(200);
    expect(record!.body).not.toContain(secret.slice(6, 30));
    const again = await call("POST", "/automation", { token: u.token, headers: { "idempotency-key": key }, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.webhookSecret).toBe(secret);
  });

  it("keeps a keyed admin user creation's answer (with the first token) sealed at rest", async () => {
    const key = `seal-admin-${crypto.randomUUID()}`;
    const body = { email: uniqueEmail("sealed"), name: "Sealed" };
    const first = await ok("POST", "/admin/users", { token: ADMIN_TOKEN, headers: { "idempotency-key": key }, body });
    const secret = first.data.token.token as string;
    const record = await kept(env.DB, "deployment-admin", key);
    expect(record?.status).toBe(200);
    expect(record!.body).not.toContain(secret);
    expect(record!.body).not.toContain(body.email);
    const again = await call("POST", "/admin/users", { token: ADMIN_TOKEN, headers: { "idempotency-key": key }, body });
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.token.token).toBe(secret);
  });
});

describe("Idempotency-Keys that survive a crash (docs/api-guide.md, HTTP semantics)", () => {
  let u: RegisteredUser;
  let table: TestTable;
  beforeAll(async () => {
    u = await registerUser("Crasher");
    const project = await ok("POST", "/project", {
      token: u.token,
      body: { workspaceId: u.workspaceId, name: "Crash" },
    });
    table = await makeTable(u.token, project.data._id);
  });

  const addRow = (key: string, name: string) =>
    call("POST", `/table/${table.tableId}/row`, {
      token: u.token,
      headers: { "idempotency-key": key },
      body: { cells: { [table.nameColumnId]: name } },
    });

  it("takes over a claim whose request died once its 60 s lease has run out, and not before", async () => {
    const key = `lease-${crypto.randomUUID()}`;
    // A request that claimed the key and died before writing: its claim is all that is left.
    const first = await addRow(key, "lease");
    expect(first.status).toBe(200);
    const db = shardD1(table.tableId);
    await db.prepare("DELETE FROM cells WHERE row_id = ?").bind(first.body.data.row._id).run();
    await db.prepare("DELETE FROM rows WHERE id = ?").bind(first.body.data.row._id).run();
    const strand = (ageMs: number) =>
      db
        .prepare(
          "UPDATE idempotency_keys SET claim = 'died', status = NULL, content_type = NULL, body = NULL, created_at = ? WHERE user_id = ? AND key = ?",
        )
        .bind(Date.now() - ageMs, u.id, key)
        .run();
    const before = await rowCount(table.tableId);

    await strand(20_000);
    expectError(await addRow(key, "lease"), 409, "ConflictError");
    expect(await rowCount(table.tableId)).toBe(before);

    await strand(61_000);
    const retried = await addRow(key, "lease");
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(await rowCount(table.tableId)).toBe(before + 1);
    const replay = await addRow(key, "lease");
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.data.row._id).toBe(retried.body.data.row._id);
    expect(await rowCount(table.tableId)).toBe(before + 1);
  });

  it("commits a row and its kept answer together: when the answer cannot be kept, the row is not written either", async () => {
    const key = `atomic-${crypto.randomUUID()}`;
    // The database refuses to keep any answer under this key: the request dies between its write and its answer
    // as far as the key can tell (as a crash would leave it). The claim is in the table's shard database.
    const db = shardD1(table.tableId);
    await db
      .prepare(
        `CREATE TRIGGER IF NOT EXISTS test_refuse_kept_answer BEFORE UPDATE OF status ON idempotency_keys
       WHEN NEW.key = '${key}' AND NEW.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash before the answer is kept'); END`,
      )
      .run();
    const before = await rowCount(table.tableId);
    try {
      const cut = await addRow(key, "atomic");
      expect(cut.status).toBe(500);
    } finally {
      await db.prepare("DROP TRIGGER IF EXISTS test_refuse_kept_answer").run();
    }
    // No row without its answer: the data rode in the batch that failed.
    expect(await rowCount(table.tableId)).toBe(before);
    // Whatever is left of the claim, a retry after its lease gets one execution, never a 409 or a second row.
    await db
      .prepare("UPDATE idempotency_keys SET created_at = ? WHERE user_id = ? AND key = ? AND status IS NULL")
      .bind(Date.now() - 61_000, u.id, key)
      .run();
    const retried = await addRow(key, "atomic");
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(await rowCount(table.tableId)).toBe(before + 1);
  });

  it("keeps the answer written with the row when the request dies after its write: the retry gets it, no second row", async () => {
    const key = `after-write-${crypto.randomUUID()}`;
    // Only the final answer (replacing the one kept with the row) is refused: the request fails after its write.
    const db = shardD1(table.tableId);
    await db
      .prepare(
        `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer BEFORE UPDATE OF status ON idempotency_keys
       WHEN NEW.key = '${key}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`,
      )
      .run();
    const before = await rowCount(table.tableId);
    try {
      expect((await addRow(key, "after write")).status).toBe(500);
    } finally {
      await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
    }
    expect(await rowCount(table.tableId)).toBe(before + 1);
    const retried = await addRow(key, "after write");
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(retried.body.data.cells.map((c: any) => c.data)).toContain("after write");
    expect(await rowCount(table.tableId)).toBe(before + 1);
  });

  it("does the same for project, document, table, column, reference, snapshot, automation, workspace and organization creates: the answer kept with the record is replayed, nothing is created twice", async () => {
    const project = await ok("POST", "/project", {
      token: u.token,
      body: { workspaceId: u.workspaceId, name: "Crash records" },
    });
    const projectId = project.data._id as string;
    const doc = (await ok("POST", "/document", { token: u.token, body: { projectId, name: "Host", type: "DOCUMENT" } }))
      .data._id as string;
    const t = await makeTable(u.token, projectId, "Host");
    // Each create's records are counted where they live: in the organization's shard database, except a new
    // organization, which may be placed on any shard (so every shard is asked, for this caller's organizations).
    // The claim is in the database the request is routed to: the organization's shard, or for POST /organization
    // the shard the new organization is placed on (asked of every shard here).
    const org = shardD1(u.organizationId);
    const everyShard = async (sqlText: string, bound: string) =>
      (
        await Promise.all(
          everyShardD1().map(async (db) => (await db.prepare(sqlText).bind(bound).first<{ n: number }>())!.n),
        )
      ).reduce((a, b) => a + b, 0);
    const inOrg = async (sqlText: string, bound: string) =>
      (await org.prepare(sqlText).bind(bound).first<{ n: number }>())!.n;
    for (const [path, body, countSql, bound, count, claims] of [
      [
        "/project",
        { workspaceId: u.workspaceId, name: "Kept" },
        "SELECT COUNT(*) AS n FROM projects WHERE workspace_id = ?",
        u.workspaceId,
        inOrg,
        [org],
      ],
      [
        `/table/${t.tableId}/column`,
        { name: "Kept", data: { type: "text" } },
        "SELECT COUNT(*) AS n FROM columns WHERE table_id = ?",
        t.tableId,
        inOrg,
        [org],
      ],
      [
        `/table/${t.tableId}/column`,
        { name: "Kept", data: { type: "formula", formula: { text: "1 + 1" } } },
        "SELECT COUNT(*) AS n FROM columns WHERE table_id = ?",
        t.tableId,
        inOrg,
        [org],
      ],
      [
        "/table/reference",
        { documentId: doc, tableId: t.tableId, columnId: t.nameColumnId, relatedRowId: null, type: "global" },
        "SELECT COUNT(*) AS n FROM table_references WHERE document_id = ?",
        doc,
        inOrg,
        [org],
      ],
      [
        "/snapshot",
        { documentId: doc, name: "Kept" },
        "SELECT COUNT(*) AS n FROM snapshots WHERE document_id = ?",
        doc,
        inOrg,
        [org],
      ],
      [
        "/clause-reference",
        { _id: `kept-${crypto.randomUUID()}`, blockId: "b", documentId: doc, hierarchy: "d/b" },
        "SELECT COUNT(*) AS n FROM clause_references WHERE document_id = ?",
        doc,
        inOrg,
        [org],
      ],
      [
        "/document",
        { projectId, name: "Kept", type: "DOCUMENT" },
        "SELECT COUNT(*) AS n FROM documents WHERE project_id = ?",
        projectId,
        inOrg,
        [org],
      ],
      [
        "/table",
        { projectId, name: "Kept" },
        "SELECT COUNT(*) AS n FROM tables WHERE project_id = ?",
        projectId,
        inOrg,
        [org],
      ],
      [
        "/automation",
        { projectId, name: "Kept", triggers: [{}], actions: [{ id: "a1", spec: { kind: "notify", title: "Hi" } }] },
        "SELECT COUNT(*) AS n FROM automations WHERE project_id = ?",
        projectId,
        inOrg,
        [org],
      ],
      [
        "/workspace",
        { organizationId: u.organizationId, name: "Kept" },
        "SELECT COUNT(*) AS n FROM workspaces WHERE organization_id = ?",
        u.organizationId,
        inOrg,
        [org],
      ],
      [
        "/organization",
        { name: "Kept" },
        "SELECT COUNT(*) AS n FROM organizations WHERE owner_id = ?",
        u.id,
        everyShard,
        everyShardD1(),
      ],
    ] as const) {
      const key = `after-write-${path.slice(1)}-${crypto.randomUUID()}`;
      for (const db of claims) {
        await db
          .prepare(
            `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer BEFORE UPDATE OF status ON idempotency_keys
           WHEN NEW.key = '${key}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`,
          )
          .run();
      }
      const before = await count(countSql, bound);
      try {
        expect(
          (await call("POST", path, { token: u.token, headers: { "idempotency-key": key }, body })).status,
          path,
        ).toBe(500);
      } finally {
        for (const db of claims) await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
      }
      expect(await count(countSql, bound), path).toBe(before + 1);
      const retried = await call("POST", path, { token: u.token, headers: { "idempotency-key": key }, body });
      expect(retried.status, `${path}: ${JSON.stringify(retried.body)}`).toBe(200);
      expect(retried.headers.get("idempotent-replayed"), path).toBe("true");
      if ("name" in body) expect(retried.body.data.name, path).toBe("Kept");
      else expect(retried.body.data.documentId, path).toBe(doc);
      expect(await count(countSql, bound), path).toBe(before + 1);
    }
  });
});

describe("keyed POSTs that are not creates keep their answer with their write (docs/api-guide.md, HTTP semantics)", () => {
  /** Sends `path` keyed while the claim's final answer is refused (a crash after the write), then again: the kept answer. */
  async function crashAfterWrite(
    u: RegisteredUser,
    path: string,
    db: D1Database,
    opts: { raw?: Uint8Array; json?: unknown; query?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const key = `after-write-${crypto.randomUUID()}`;
    await db
      .prepare(
        `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer BEFORE UPDATE OF status ON idempotency_keys
       WHEN NEW.key = '${key}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`,
      )
      .run();
    try {
      expect(
        (
          await call("POST", path, {
            raw: opts.raw,
            body: opts.json,
            query: opts.query,
            token: u.token,
            headers: { ...opts.headers, "idempotency-key": key },
          })
        ).status,
        path,
      ).toBe(500);
    } finally {
      await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
    }
    const retried = await call("POST", path, {
      raw: opts.raw,
      body: opts.json,
      query: opts.query,
      token: u.token,
      headers: { ...opts.headers, "idempotency-key": key },
    });
    expect(retried.status, `${path}: ${JSON.stringify(retried.body)}`).toBe(200);
    expect(retried.headers.get("idempotent-replayed"), path).toBe("true");
    return retried.body.data;
  }

  it("a manual run, a retry and a webhook secret rotation: the retry after a crash replays, nothing runs or rotates twice", async () => {
    const u = await registerUser("Crash runner");
    const project = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Runs" } })
    ).data._id as string;
    const auto = (
      await ok("POST", "/automation", {
        token: u.token,
        body: { projectId: project, name: "Manual", actions: [{ id: "n", spec: { kind: "notify", title: "Hi" } }] },
      })
    ).data;
    const db = shardD1(project);
    const runCount = async () =>
      Number(
        await db.prepare("SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?").bind(auto._id).first("n"),
      );

    const run = await crashAfterWrite(u, `/automation/${auto._id}/run`, db);
    expect(await runCount()).toBe(1);
    const retry = await crashAfterWrite(u, `/automation/run/${run._id}/retry`, db);
    expect(retry.retryOf).toBe(run._id);
    expect(await runCount()).toBe(2);

    const rotated = await crashAfterWrite(u, `/automation/${auto._id}/webhook-secret/rotate`, db);
    // The replayed secret is the one in force: the retry did not rotate it again.
    const now = (await ok("GET", `/automation/${auto._id}`, { token: u.token })).data;
    expect(now.webhookSecret).toBe(rotated.webhookSecret);
  });

  it("an audio upload and a document invitation: one record for the request and its retry", async () => {
    const u = await registerUser("Crash sharer");
    const project = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Shares" } })
    ).data._id as string;
    const doc = (
      await ok("POST", "/document", { token: u.token, body: { projectId: project, name: "Shared", type: "DOCUMENT" } })
    ).data._id as string;
    const db = shardD1(project);
    const count = async (table: string) =>
      Number(await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE document_id = ?`).bind(doc).first("n"));
    const audio = await crashAfterWrite(u, "/media/audio", db, {
      raw: bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 2048),
      query: { workspaceId: u.workspaceId, documentId: doc, fileName: "memo.mp3", mimeType: "audio/mpeg" },
      headers: { "content-type": "application/octet-stream" },
    });
    expect(audio._id).toEqual(expect.any(String));
    expect(await count("audio_media")).toBe(1);
    const invited = await crashAfterWrite(u, "/document/invite-user", db, {
      json: { documentId: doc, email: uniqueEmail(), role: "viewer" },
    });
    expect(invited).toEqual({ invitationsSent: 1, documentsInvited: 1, usersInvited: 0 });
    expect(await count("invitations")).toBe(1);
  });

  it("a DOCX upload (a create with a raw body): one document for the request and its retry", async () => {
    const u = await registerUser("Crash uploader");
    const project = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Uploads" } })
    ).data._id as string;
    const db = shardD1(project);
    const made = await crashAfterWrite(u, "/document/docx", db, {
      raw: docxBytes(),
      query: { projectId: project, name: "Kept" },
      headers: { "content-type": DOCX_TYPE },
    });
    expect(made.name).toBe("Kept");
    expect(
      Number(await db.prepare("SELECT count(*) AS n FROM documents WHERE project_id = ?").bind(project).first("n")),
    ).toBe(1);
  });
});

describe("every POST operation with an Idempotency-Key (docs/api-guide.md, HTTP semantics)", () => {
  for (const [area, factory] of Object.entries(caseFactories)) {
    it(`${area}: each POST case, keyed, answers without a 5xx and its retry gets the same status and body`, async () => {
      const t: Tenant = await seedTenant();
      const problems: string[] = [];
      for (const c of (await factory(t)).filter((c) => c.method.toUpperCase() === "POST")) {
        // A retry resends the same bytes: a raw body (a multipart form draws a new boundary each time) is encoded once.
        const encoded = c.raw ? new Request("http://encode.test/", { method: "POST", body: c.raw() }) : null;
        const raw = encoded ? await encoded.arrayBuffer() : undefined;
        const type = encoded?.headers.get("content-type");
        const headers = {
          ...(type && { "content-type": type }),
          ...c.headers,
          "idempotency-key": `every-${crypto.randomUUID()}`,
        };
        const send = () => call(c.method, c.path, { token: t.owner.token, body: c.body, raw, query: c.query, headers });
        const first = await send();
        if (first.status >= 500) {
          problems.push(`${c.name}: ${first.status} ${JSON.stringify(first.body)}`);
          continue;
        }
        const again = await send();
        if (again.status !== first.status || JSON.stringify(again.body) !== JSON.stringify(first.body)) {
          problems.push(
            `${c.name}: retry ${again.status} ${JSON.stringify(again.body).slice(0, 200)} after ${first.status} ${JSON.stringify(first.body).slice(0, 200)}`,
          );
        }
      }
      expect(problems).toEqual([]);
    });
  }
});

describe("keyed POSTs whose write spans databases keep their answer with it (docs/api-guide.md, HTTP semantics)", () => {
  const refuseFinal = (key: string) =>
    `CREATE TRIGGER IF NOT EXISTS test_refuse_final_answer BEFORE UPDATE OF status ON idempotency_keys
     WHEN NEW.key = '${key}' AND OLD.status IS NOT NULL BEGIN SELECT RAISE(ABORT, 'simulated crash after the write'); END`;

  it("a portal publish: the retry after a crash replays the project with its entry, not 409 for its own slug", async () => {
    const u = await registerUser("Crash publisher");
    const project = (
      await ok("POST", "/project", { token: u.token, body: { workspaceId: u.workspaceId, name: "Portal" } })
    ).data._id as string;
    const db = shardD1(project);
    // An entry already there, so the kept answer has to list both in the mirror's order.
    await ok("POST", `/project/${project}/publish`, {
      token: u.token,
      body: { slug: `first-${crypto.randomUUID().slice(0, 8)}` },
    });
    const key = `publish-${crypto.randomUUID()}`;
    const body = {
      slug: `kept-${crypto.randomUUID().slice(0, 8)}`,
      domain: `kept-${crypto.randomUUID().slice(0, 8)}.example.com`,
      password: "hunter22",
    };
    const send = () =>
      call("POST", `/project/${project}/publish`, { token: u.token, headers: { "idempotency-key": key }, body });
    await db.prepare(refuseFinal(key)).run();
    try {
      expect((await send()).status).toBe(500);
    } finally {
      await db.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
    }
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    // The kept answer is the project as the write left it (the mirror with both entries, the new time).
    const now = (await ok("GET", `/project/${project}`, { token: u.token })).data;
    expect(retried.body.data).toEqual(now);
    expect(now.published.map((p: any) => p.slug)).toEqual([expect.stringMatching(/^first-/), body.slug]);
    expect(
      Number(
        await db.prepare("SELECT count(*) AS n FROM published_entries WHERE project_id = ?").bind(project).first("n"),
      ),
    ).toBe(2);
  });

  it("concurrent keyed publishes of one project: each answer (and its replay) is the project as its own write left it", async () => {
    const u = await registerUser("Racing publisher");
    const project = (
      await ok("POST", `/project`, { token: u.token, body: { workspaceId: u.workspaceId, name: "Race" } })
    ).data._id as string;
    const requests = [0, 1, 2].map((i) => ({
      key: `race-${i}-${crypto.randomUUID()}`,
      slug: `race-${i}-${crypto.randomUUID().slice(0, 8)}`,
    }));
    const send = (r: { key: string; slug: string }) =>
      call("POST", `/project/${project}/publish`, {
        token: u.token,
        headers: { "idempotency-key": r.key },
        body: { slug: r.slug },
      });
    // Read at once, written one after another: a write whose project changed since its read re-reads it first.
    const answers = await Promise.all(requests.map(send));
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    const lists = answers.map((a) => a.body.data.published.map((p: any) => p.slug) as string[]);
    requests.forEach((r, i) => expect(lists[i]).toContain(r.slug));
    expect(lists.map((l) => l.length).sort()).toEqual([1, 2, 3]);
    const final = (await ok("GET", `/project/${project}`, { token: u.token })).data;
    expect(lists.find((l) => l.length === 3)).toEqual(final.published.map((p: any) => p.slug));
    for (const [i, r] of requests.entries()) {
      const replay = await send(r);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(replay.body).toEqual(answers[i]!.body);
    }
  });

  it("a user registration: the retry after a crash replays the first token, and one user exists", async () => {
    const key = `register-${crypto.randomUUID()}`;
    const body = { email: uniqueEmail("crash-register"), name: "Crash registered" };
    const send = () => call("POST", "/admin/users", { token: ADMIN_TOKEN, headers: { "idempotency-key": key }, body });
    await env.DB.prepare(refuseFinal(key)).run();
    try {
      expect((await send()).status).toBe(500);
    } finally {
      await env.DB.prepare("DROP TRIGGER IF EXISTS test_refuse_final_answer").run();
    }
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(
      Number(await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = ?").bind(body.email).first("n")),
    ).toBe(1);
    // The replayed first token is the one in force.
    const me = await ok("GET", `/workspace/${retried.body.data.workspace._id}`, {
      token: retried.body.data.token.token,
    });
    expect(me.data.name).toBe("My workspace");
  });

  it("a user registration that died between the directory and the shards: the retry replays the token and completes the organization and workspace", async () => {
    const key = `register-half-${crypto.randomUUID()}`;
    const name = `Half ${crypto.randomUUID().slice(0, 8)}`;
    const body = { email: uniqueEmail("half-register"), name };
    const send = () => call("POST", "/admin/users", { token: ADMIN_TOKEN, headers: { "idempotency-key": key }, body });
    // Every shard refuses the new organization: the directory's batch commits, the shards' part does not.
    const refuse = `CREATE TRIGGER IF NOT EXISTS test_refuse_organization BEFORE INSERT ON organizations
      WHEN NEW.name = '${name}''s organization' BEGIN SELECT RAISE(ABORT, 'simulated crash before the shard write'); END`;
    for (const db of everyShardD1()) await db.prepare(refuse).run();
    try {
      expect((await send()).status).toBe(500);
    } finally {
      for (const db of everyShardD1()) await db.prepare("DROP TRIGGER IF EXISTS test_refuse_organization").run();
    }
    expect(
      Number(await env.DB.prepare("SELECT count(*) AS n FROM users WHERE email = ?").bind(body.email).first("n")),
    ).toBe(1);
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    const { token, organization, workspace } = retried.body.data;
    const home = shardD1(organization._id);
    expect(
      Number(
        await home.prepare("SELECT count(*) AS n FROM organizations WHERE id = ?").bind(organization._id).first("n"),
      ),
    ).toBe(1);
    // The user can use what the answer named: the token, its workspace and its organization.
    expect((await ok("GET", `/workspace/${workspace._id}`, { token: token.token })).data.organizationId).toBe(
      organization._id,
    );
    // A later replay finds the registration complete and writes nothing more.
    const again = await send();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body).toEqual(retried.body);
    expect(
      Number(
        await home
          .prepare("SELECT count(*) AS n FROM workspaces WHERE organization_id = ?")
          .bind(organization._id)
          .first("n"),
      ),
    ).toBe(1);
  });

  it("a search reindex page: a repeat after a crash runs the page again harmlessly and answers the same cursor", async () => {
    const key = `reindex-${crypto.randomUUID()}`;
    const send = () =>
      call("POST", "/admin/search/reindex", { token: ADMIN_TOKEN, headers: { "idempotency-key": key }, body: {} });
    const first = await send();
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    const entries = async () =>
      (
        await Promise.all(
          everyShardD1().map(async (db) =>
            Number(await db.prepare("SELECT count(*) AS n FROM search_entries").first("n")),
          ),
        )
      ).reduce((a, b) => a + b, 0);
    const before = await entries();
    // The page's write is in a shard, the claim in the directory: a crash after the write leaves only the claim.
    await env.DB.prepare(
      "UPDATE idempotency_keys SET claim = 'died', status = NULL, content_type = NULL, body = NULL, created_at = ? WHERE user_id = 'deployment-admin' AND key = ?",
    )
      .bind(Date.now() - 61_000, key)
      .run();
    const retried = await send();
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBeNull();
    expect(retried.body.data.nextCursor).toBe(first.body.data.nextCursor);
    expect(await entries()).toBe(before);
    // Its answer is kept and replayed as any other.
    const replay = await send();
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toEqual(retried.body);
  });
});
