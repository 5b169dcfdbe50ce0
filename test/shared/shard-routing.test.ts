/**
 * Requests reach the database their ids name (docs/scaling.md, "Routing with no lookup"): an organization's records
 * are written to and read from its shard database only, authentication reads the directory, and two organizations
 * on different shard databases never see each other's records. `x-d1-databases` names what each request touched.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { shardBindings } from "../../src/tenancy/kernel/map";
import { sha256Hex } from "../../src/lib/crypto";
import { call, ok, registerUser, type RegisteredUser } from "../support/harness";

/** A registered user whose personal organization sits on a shard database other than `avoid`'s. */
async function userOnAnotherShard(avoid: string | null): Promise<RegisteredUser> {
  for (let i = 0; i < 40; i++) {
    const u = await registerUser("Routed");
    if (shardBindingOfId(u.organizationId) !== avoid) return u;
  }
  throw new Error("every registration landed on one shard database");
}

const databases = (res: { headers: Headers }) => res.headers.get("x-d1-databases");

/** Whether a JSON body schema holds the member at `path` (dotted: `scope.projectId`), in any branch of a union. */
function bodyHas(doc: any, schema: any, path: string[]): boolean {
  const s = schema?.$ref ? doc.components.schemas[schema.$ref.split("/").pop()!] : schema;
  if (!s) return false;
  if (path.length === 0) return true;
  const branches = [...(s.anyOf ?? []), ...(s.oneOf ?? [])];
  if (branches.length) return branches.some((b: any) => bodyHas(doc, b, path));
  return bodyHas(doc, s.properties?.[path[0]!], path.slice(1));
}

describe("every operation declares where its queries go", () => {
  it("each shard key names a path parameter, a JSON body member or a query parameter the operation takes", async () => {
    const doc = (await call("GET", "/openapi.json")).body as {
      paths: Record<string, Record<string, any>>;
      components: { schemas: Record<string, any> };
    };
    const wrong: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const key = op["x-shard-key"] as string | undefined;
        const where = `${method.toUpperCase()} ${path}: ${key}`;
        if (key === "directory" || key === "service" || key === "new-organization") continue;
        // Discovery documents are served without a database (and without defineRoute's settings).
        if (key === undefined && (path === "/openapi.json" || path === "/docs")) continue;
        const [kind, name] = (key ?? "").split(":");
        const params = (op.parameters ?? []) as { in: string; name: string }[];
        const body = op.requestBody?.content?.["application/json"]?.schema;
        const bodySchema = body?.$ref ? doc.components.schemas[body.$ref.split("/").pop()!] : body;
        const ok =
          (kind === "param" && params.some((p) => p.in === "path" && p.name === name)) ||
          (kind === "query" && params.some((p) => p.in === "query" && p.name === name)) ||
          (kind === "body" && name!.split(",").every((path) => bodyHas(doc, bodySchema, path.split("."))));
        if (!ok) wrong.push(where);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("requests go to their organization's shard database", () => {
  it("a project and its documents are written to the organization's shard only, and read from it beside the directory", async () => {
    const a = await userOnAnotherShard(null);
    const home = shardBindingOfId(a.organizationId)!;
    const project = await call("POST", "/project", {
      token: a.token,
      body: { workspaceId: a.workspaceId, name: "Routed project" },
    });
    expect(project.status).toBe(200);
    expect(databases(project)).toBe(`DB,${home}`);
    const doc = (
      await ok("POST", "/document", {
        token: a.token,
        body: { projectId: project.body.data._id, name: "Here", type: "DOCUMENT" },
      })
    ).data;
    for (const binding of shardBindings()) {
      const found = await env[binding]!.prepare("SELECT count(*) AS n FROM documents WHERE id = ?")
        .bind(doc._id)
        .first<{ n: number }>();
      expect(found?.n, binding).toBe(binding === home ? 1 : 0);
    }
    // The directory has no table to hold it: it is made by its own kind's migrations (docs/scaling.md).
    expect(await env.DB.prepare("SELECT name FROM sqlite_master WHERE name = 'documents'").first()).toBeNull();
    const read = await call("GET", `/document/${doc._id}`, { token: a.token });
    expect(read.status).toBe(200);
    expect(databases(read)).toBe(`DB,${home}`);
    // The token's check in the directory and the document's read in the shard, at the same time.
    expect(read.headers.get("x-d1-round-trips")).toBe("1");
  });

  it("two organizations on different shard databases: each sees its own records, the other's are absent (404), and neither request touches the other's database", async () => {
    const a = await userOnAnotherShard(null);
    const b = await userOnAnotherShard(shardBindingOfId(a.organizationId));
    const [aHome, bHome] = [shardBindingOfId(a.organizationId)!, shardBindingOfId(b.organizationId)!];
    expect(aHome).not.toBe(bHome);
    const aProject = (await ok("POST", "/project", { token: a.token, body: { workspaceId: a.workspaceId, name: "A" } }))
      .data;
    const bProject = (await ok("POST", "/project", { token: b.token, body: { workspaceId: b.workspaceId, name: "B" } }))
      .data;
    const own = await call("GET", `/project/${bProject._id}`, { token: b.token });
    expect(own.status).toBe(200);
    const other = await call("GET", `/project/${aProject._id}`, { token: b.token });
    expect(other.status).toBe(404);
    // B's request about A's project reads A's shard (where the project is) and finds no access there.
    expect(databases(other)).toBe(`DB,${aHome}`);
    expect(databases(own)).toBe(`DB,${bHome}`);
  });

  it("a user's organizations are listed from the directory's index alone, each organization wherever its shard is", async () => {
    const a = await userOnAnotherShard(null);
    const b = await userOnAnotherShard(shardBindingOfId(a.organizationId));
    // B becomes a member of A's organization (on another shard): both organizations are listed for B.
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    await ok("GET", "/me", { token: b.token }); // spends the token's first lastUsedAt write outside the measured call
    const listed = await call("GET", "/organization/all", { token: b.token });
    expect(listed.status).toBe(200);
    expect((listed.body.data as { _id: string }[]).map((o) => o._id).sort()).toEqual(
      [a.organizationId, b.organizationId].sort(),
    );
    // The index is in the directory: the token's check and the listing are one batch there, no shard is asked.
    expect(databases(listed)).toBe("DB");
    expect(listed.headers.get("x-d1-round-trips")).toBe("1");
    // A token of the older form (no user in it) is no token any more, even with its row in place: 401, no lookup.
    const legacy = `cws_${crypto.randomUUID().replace(/-/g, "")}ABCDEFGH`;
    await env.DB.prepare(
      "INSERT INTO access_tokens (id, user_id, name, token_hash, created_at, last_used_at) VALUES (?, ?, 'legacy', ?, ?, ?)",
    )
      .bind(crypto.randomUUID(), b.id, await sha256Hex(legacy), Date.now(), Date.now())
      .run();
    const old = await call("GET", "/organization/all", { token: legacy });
    expect(old.status).toBe(401);
    expect(old.headers.get("x-d1-round-trips")).toBe("0");
  });

  it("every shard keeps a copy of every registered user, and the directory holds the token", async () => {
    const u = await registerUser("Copied");
    for (const binding of shardBindings()) {
      const row = await env[binding]!.prepare("SELECT email FROM users WHERE id = ?")
        .bind(u.id)
        .first<{ email: string }>();
      expect(row?.email, binding).toBe(u.email);
      // Tokens are the directory's alone: a shard has no table for them.
      expect(
        await env[binding]!.prepare("SELECT name FROM sqlite_master WHERE name = 'access_tokens'").first(),
        binding,
      ).toBeNull();
    }
    expect(
      (
        await env.DB.prepare("SELECT count(*) AS n FROM access_tokens WHERE user_id = ?")
          .bind(u.id)
          .first<{ n: number }>()
      )?.n,
    ).toBe(1);
  });

  it("a keyed create with a token the directory refuses answers 401 and leaves no claim of the named user's key in any database", async () => {
    const a = await userOnAnotherShard(null);
    const key = `forged-${crypto.randomUUID()}`;
    const forged = `cws_${a.id}_${"Z".repeat(40)}`;
    const res = await call("POST", "/project", {
      token: forged,
      headers: { "idempotency-key": key },
      body: { workspaceId: a.workspaceId, name: "Never" },
    });
    expect(res.status).toBe(401);
    for (const binding of ["DB", ...shardBindings()] as const) {
      const held = await env[binding]!.prepare(
        "SELECT count(*) AS n FROM idempotency_keys WHERE user_id = ? AND key = ?",
      )
        .bind(a.id, key)
        .first<{ n: number }>();
      expect(held?.n, binding).toBe(0);
    }
    // The user's own request with that key runs as if the forged one never happened.
    const mine = await call("POST", "/project", {
      token: a.token,
      headers: { "idempotency-key": key },
      body: { workspaceId: a.workspaceId, name: "Mine" },
    });
    expect(mine.status).toBe(200);
    expect(mine.headers.get("x-d1-round-trips")).toBe("3");
  });

  it("a keyed POST /organization retried with another of the caller's tokens lands on the same shard database and is replayed, not created twice", async () => {
    const a = await registerUser("Retrying");
    const second = (await ok("POST", "/token", { token: a.token, body: { name: "second" } })).data.token as string;
    const key = `org-${crypto.randomUUID()}`;
    const first = await call("POST", "/organization", {
      token: a.token,
      headers: { "idempotency-key": key },
      body: { name: "Once" },
    });
    expect(first.status).toBe(200);
    const again = await call("POST", "/organization", {
      token: second,
      headers: { "idempotency-key": key },
      body: { name: "Once" },
    });
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data._id).toBe(first.body.data._id);
    const listed = (await ok("GET", "/organization/all", { token: a.token })).data as { name: string }[];
    expect(listed.filter((o) => o.name === "Once")).toHaveLength(1);
  });
});
