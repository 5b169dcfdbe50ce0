/**
 * A local database from before the shard databases (docs/scaling.md, "Adopting a database from before the shards"):
 * its organizations' records sit in the directory (DB) under ids of the older 26-character form, which name logical
 * shard 0. `POST /admin/shards/adopt` (run by npm start) merges them into the shard database the map names, which
 * may already serve that logical shard, verified, and they answer through the API again; nothing is lost, nothing
 * stays behind, and nothing the target held is touched.
 */
import { applyD1Migrations, env } from "cloudflare:test";
import { ulid } from "ulidx";
import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, ok, registerUser } from "../support/harness";

describe("adopting records kept in the directory by an earlier version", () => {
  it("moves them to their shard database, where the API finds them; a second run has nothing to do", async () => {
    const u = await registerUser("Legacy owner");
    const t = Date.now();
    const [orgId, wsId, projectId] = [ulid(), ulid(), ulid()];
    // An earlier version's directory held every table: this one gets the shard kind's tables as such a database has
    // them (the shard baseline is the end state of the one set every database took then; without the columns added
    // since, such as organization_members.updated_at, which the copy leaves to its default).
    await applyD1Migrations(env.DB, env.TEST_SHARD_MIGRATIONS.filter((m) => m.name.startsWith("0000_")));
    expect(await env.DB.prepare("SELECT 1 FROM pragma_table_info('organization_members') WHERE name = 'updated_at'").first()).toBeNull();
    // What an earlier `npm start` left: an organization, a workspace and a project in the one database.
    await env.DB.batch([
      env.DB.prepare("INSERT INTO organizations (id, name, owner_id, created_at, updated_at) VALUES (?, 'Legacy', ?, ?, ?)").bind(orgId, u.id, t, t),
      env.DB.prepare("INSERT INTO organization_members (organization_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)").bind(orgId, u.id, t),
      env.DB.prepare("INSERT INTO workspaces (id, organization_id, name, description, is_default, is_shared, owner_id, created_at, updated_at) VALUES (?, ?, 'Old workspace', '', 0, 0, ?, ?, ?)").bind(wsId, orgId, u.id, t, t),
      env.DB.prepare("INSERT INTO workspace_collaborators (workspace_id, user_id, role, created_at) VALUES (?, ?, 'owner', ?)").bind(wsId, u.id, t),
      env.DB.prepare("INSERT INTO projects (id, workspace_id, user_id, name, created_at, updated_at) VALUES (?, ?, ?, 'Old project', ?, ?)").bind(projectId, wsId, u.id, t, t),
    ]);
    // Something of logical shard 0 already in its database (organizations placed there since): the merge keeps it.
    const [newerWs] = [`${ulid()}00`];
    await env.SHARD_0!.batch([
      env.SHARD_0!.prepare("INSERT INTO organizations (id, name, owner_id, created_at, updated_at) VALUES (?, 'Newer', ?, ?, ?)").bind(`${ulid()}00`, u.id, t, t),
      env.SHARD_0!.prepare("INSERT INTO workspaces (id, organization_id, name, description, is_default, is_shared, owner_id, created_at, updated_at) VALUES (?, (SELECT id FROM organizations WHERE name = 'Newer' AND owner_id = ?), 'Newer workspace', '', 0, 0, ?, ?, ?)").bind(newerWs, u.id, u.id, t, t),
    ]);
    // Routed by its id to shard 0's database, which does not hold it yet.
    expect((await call("GET", `/project/${projectId}`, { token: u.token })).status).toBe(404);

    const adopted = await ok("POST", "/admin/shards/adopt", { token: ADMIN_TOKEN });
    expect(adopted.data.moved).toEqual([expect.objectContaining({ logical: 0, to: "SHARD_0" })]);
    expect(adopted.data.moved[0].rows).toBeGreaterThanOrEqual(5);

    const project = await ok("GET", `/project/${projectId}`, { token: u.token });
    expect(project.data.name).toBe("Old project");
    const listed = await ok("GET", "/organization/all", { token: u.token });
    expect((listed.data as { _id: string }[]).map((o) => o._id)).toContain(orgId);
    expect((await env.SHARD_0!.prepare("SELECT count(*) AS n FROM projects WHERE id = ?").bind(projectId).first<{ n: number }>())?.n).toBe(1);
    expect((await env.SHARD_0!.prepare("SELECT name FROM workspaces WHERE id = ?").bind(newerWs).first<{ name: string }>())?.name).toBe("Newer workspace");

    // Nothing stayed behind: the directory's shard tables are dropped only once they are empty, and they are, so it
    // holds what a directory made by its own migrations holds.
    expect(adopted.data.directoryTablesDropped).toEqual(expect.arrayContaining(["organizations", "cells", "search_fts", "shard_fence"]));
    const tablesOf = async (db: D1Database) =>
      (await db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'd1_migrations' ORDER BY name").all<{ name: string }>()).results.map((r) => r.name).filter((n) => !n.startsWith("_cf_"));
    const directoryKind = env.TEST_DIRECTORY_MIGRATIONS.flatMap((m) => m.queries.flatMap((sql) => /CREATE TABLE (?:IF NOT EXISTS )?`(\w+)`/.exec(sql)?.[1] ?? [])).sort();
    expect(directoryKind).toContain("access_tokens");
    expect(await tablesOf(env.DB)).toEqual(directoryKind);

    const again = await ok("POST", "/admin/shards/adopt", { token: ADMIN_TOKEN });
    expect(again.data.moved).toEqual([]);
    expect(again.data.directoryTablesDropped).toEqual([]);
  });

  it("needs the deployment's admin token", async () => {
    const u = await registerUser("Not admin");
    expect((await call("POST", "/admin/shards/adopt", { token: u.token })).status).toBe(401);
  });
});
