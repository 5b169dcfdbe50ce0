/**
 * The directory index of memberships (docs/scaling.md "The directory index of memberships"): `GET /organization/all`
 * reads `user_organizations` in the directory beside the token's check — one round trip, no shard database — and
 * every write that changes a membership writes the index after its shard. When that second half fails (a trigger
 * refuses it here on purpose), the shard's write stands and the scheduler's tick fills the index; a row whose
 * membership is gone is removed by the same repair; adoption's full pass builds the index from scratch.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { call, ok, registerUser, uniqueEmail, type RegisteredUser } from "../support/harness";
import { callScheduled } from "../support/automations";
import { shardD1 } from "../support/shards";
import { shardBindingOfId } from "../../src/tenancy/kernel/ids";
import { newShardedId } from "../../src/lib/ids";
import {
  reconcileUserOrganizations,
  USER_ORGANIZATIONS_GRACE_MS,
} from "../../src/services/organizations/userOrganizations";

interface Listed {
  _id: string;
  name: string;
  ownerId: string;
  createdAt: number;
  updatedAt: number;
  role: string;
}

/** The caller's listing, checked to read the directory only, in one round trip. */
async function listed(user: RegisteredUser): Promise<Listed[]> {
  const res = await call("GET", "/organization/all", { token: user.token });
  expect(res.status).toBe(200);
  expect(res.headers.get("x-d1-databases")).toBe("DB");
  expect(res.headers.get("x-d1-round-trips")).toBe("1");
  return res.body.data as Listed[];
}

/** What the listing must say, read from the shards themselves: every membership of the user, oldest first. */
async function truth(user: RegisteredUser, organizationIds: string[]): Promise<Listed[]> {
  const rows: Listed[] = [];
  for (const id of organizationIds) {
    const row = await shardD1(id)
      .prepare(
        `SELECT o.id AS _id, o.name, o.owner_id AS ownerId, o.created_at AS createdAt, o.updated_at AS updatedAt, om.role
         FROM organization_members om JOIN organizations o ON o.id = om.organization_id WHERE om.organization_id = ?1 AND om.user_id = ?2`,
      )
      .bind(id, user.id)
      .first<Listed>();
    if (row) rows.push(row);
  }
  return rows.sort((a, b) => a.createdAt - b.createdAt || (a._id < b._id ? -1 : 1));
}

/** A registered user whose token's first lastUsedAt write is spent (outside the measured listings). */
async function user(name: string, email?: string): Promise<RegisteredUser> {
  const u = await registerUser(name, email);
  await ok("GET", "/me", { token: u.token });
  return u;
}

/** A registered user whose personal organization sits on a shard database other than `avoid`'s. */
async function userOnAnotherShard(name: string, avoid: string): Promise<RegisteredUser> {
  for (let i = 0; i < 40; i++) {
    const u = await user(name);
    if (shardBindingOfId(u.organizationId) !== shardBindingOfId(avoid)) return u;
  }
  throw new Error("every registration landed on one shard database");
}

/** A directory trigger that refuses the index's writes about `organizationId` while `body` runs. */
async function refusingIndexWrites<T>(organizationId: string, body: () => Promise<T>): Promise<T> {
  const when = `WHEN NEW.organization_id = '${organizationId}'`;
  await env.DB.batch([
    env.DB.prepare(
      `CREATE TRIGGER test_refuse_index_insert BEFORE INSERT ON user_organizations ${when} BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END`,
    ),
    env.DB.prepare(
      `CREATE TRIGGER test_refuse_index_update BEFORE UPDATE ON user_organizations ${when} BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END`,
    ),
  ]);
  try {
    return await body();
  } finally {
    await env.DB.batch([
      env.DB.prepare(`DROP TRIGGER test_refuse_index_insert`),
      env.DB.prepare(`DROP TRIGGER test_refuse_index_update`),
    ]);
  }
}

/** Makes the index rows of `userId` look checked long ago, so the tick's check of index rows takes them now. */
async function ageIndexRows(userId: string) {
  await env.DB.prepare(`UPDATE user_organizations SET synced_at = synced_at - ?2 WHERE user_id = ?1`)
    .bind(userId, 2 * USER_ORGANIZATIONS_GRACE_MS)
    .run();
}

describe("GET /organization/all reads the directory's index", () => {
  it("lists what the shards hold after registration, a create, a member added, a role changed, a collaborator added and an invitation accepted", async () => {
    const a = await user("Indexed owner");
    expect(await listed(a)).toEqual(await truth(a, [a.organizationId]));
    expect((await listed(a))[0]).toMatchObject({ _id: a.organizationId, ownerId: a.id, role: "owner" });

    const second = (await ok("POST", "/organization", { token: a.token, body: { name: "Second of A" } }))
      .data as Listed;
    expect(await listed(a)).toEqual(await truth(a, [a.organizationId, second._id]));
    expect((await listed(a)).map((o) => o._id)).toEqual([a.organizationId, second._id]);

    // B (on another shard database) is added to A's organization, then made admin.
    const b = await userOnAnotherShard("Indexed member", a.organizationId);
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    expect(await listed(b)).toEqual(await truth(b, [a.organizationId, b.organizationId]));
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("member");
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "admin" },
    });
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("admin");
    expect(await listed(b)).toEqual(await truth(b, [a.organizationId, b.organizationId]));

    // A workspace collaborator becomes a member of its organization.
    const c = await user("Indexed collaborator");
    await ok("POST", `/workspace/${a.workspaceId}/collaborator`, {
      token: a.token,
      body: { email: c.email, role: "editor" },
    });
    expect(await listed(c)).toEqual(await truth(c, [a.organizationId, c.organizationId]));
    expect((await listed(c)).find((o) => o._id === a.organizationId)?.role).toBe("member");
    // Collaborating again does not lower an admin's role in the index (the shard keeps it, so does the index).
    await ok("POST", `/workspace/${a.workspaceId}/collaborator`, {
      token: a.token,
      body: { email: b.email, role: "viewer" },
    });
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("admin");

    // An email without an account is invited as admin, and registers: the invitation's membership is listed.
    const email = uniqueEmail();
    await ok("POST", `/organization/${second._id}/member`, { token: a.token, body: { email, role: "admin" } });
    const d = await user("Indexed invitee", email);
    expect(await listed(d)).toEqual(await truth(d, [second._id, d.organizationId]));
    expect((await listed(d)).find((o) => o._id === second._id)?.role).toBe("admin");
  });
});

describe("the index's repair", () => {
  it("a create whose index write fails stands; the listing lacks it until the tick writes it", async () => {
    const a = await user("Refused index");
    // The organization's id is drawn by the route: refuse every index write for rows not of A's first organization.
    await env.DB.prepare(
      `CREATE TRIGGER test_refuse_new_org BEFORE INSERT ON user_organizations WHEN NEW.user_id = '${a.id}' AND NEW.organization_id <> '${a.organizationId}'
       BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END`,
    ).run();
    let created: Listed;
    try {
      const res = await call("POST", "/organization", { token: a.token, body: { name: "Unindexed" } });
      // The shard's write committed: the request answers it.
      expect(res.status).toBe(200);
      created = res.body.data as Listed;
    } finally {
      await env.DB.prepare(`DROP TRIGGER test_refuse_new_org`).run();
    }
    // The organization exists and is reachable by its id…
    expect((await call("GET", `/workspace/all/${created._id}`, { token: a.token })).status).toBe(200);
    expect(await truth(a, [created._id])).toHaveLength(1);
    // …but the listing, which reads the index only, lacks it.
    expect((await listed(a)).map((o) => o._id)).toEqual([a.organizationId]);

    // The scheduler's tick (the Worker's scheduled handler) writes it from the shard.
    await callScheduled(Date.now());
    expect(await listed(a)).toEqual(await truth(a, [a.organizationId, created._id]));
    // Once: the next tick has nothing to write.
    expect((await reconcileUserOrganizations(env, Date.now())).written).toBe(0);
  });

  it("a role change whose index write fails is repaired by the tick", async () => {
    const a = await user("Role owner");
    const b = await userOnAnotherShard("Role member", a.organizationId);
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    await refusingIndexWrites(a.organizationId, () =>
      ok("POST", `/organization/${a.organizationId}/member`, {
        token: a.token,
        body: { email: b.email, role: "admin" },
      }),
    );
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("member");
    const repair = await reconcileUserOrganizations(env, Date.now());
    expect(repair.written).toBeGreaterThanOrEqual(1);
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("admin");
    expect(await listed(b)).toEqual(await truth(b, [a.organizationId, b.organizationId]));
  });

  it("a role change made on a clock behind the last change's still reaches the index (each change a newer version)", async () => {
    const a = await user("Skewed owner");
    const b = await userOnAnotherShard("Skewed member", a.organizationId);
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    // The last change was made by an isolate whose clock ran a minute ahead: its version is in this clock's future,
    // in the shard and in the index alike.
    const ahead = Date.now() + 60_000;
    await shardD1(a.organizationId)
      .prepare(`UPDATE organization_members SET updated_at = ?1 WHERE organization_id = ?2 AND user_id = ?3`)
      .bind(ahead, a.organizationId, b.id)
      .run();
    await env.DB.prepare(
      `UPDATE user_organizations SET member_updated_at = ?1 WHERE organization_id = ?2 AND user_id = ?3`,
    )
      .bind(ahead, a.organizationId, b.id)
      .run();
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "admin" },
    });
    expect((await listed(b)).find((o) => o._id === a.organizationId)?.role).toBe("admin");
    const member = await shardD1(a.organizationId)
      .prepare(`SELECT updated_at FROM organization_members WHERE organization_id = ?1 AND user_id = ?2`)
      .bind(a.organizationId, b.id)
      .first<number>("updated_at");
    expect(member).toBe(ahead + 1);
  });

  it("a row whose membership is gone from its shard is removed; the others stay", async () => {
    const a = await user("Stale owner");
    const b = await userOnAnotherShard("Stale member", a.organizationId);
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    expect((await listed(b)).map((o) => o._id).sort()).toEqual([a.organizationId, b.organizationId].sort());
    // The membership is deleted in the shard directly: the index still names it.
    await shardD1(a.organizationId)
      .prepare(`DELETE FROM organization_members WHERE organization_id = ?1 AND user_id = ?2`)
      .bind(a.organizationId, b.id)
      .run();
    expect((await listed(b)).map((o) => o._id).sort()).toEqual([a.organizationId, b.organizationId].sort());
    // A row checked within the grace period is left for later…
    await callScheduled(Date.now());
    expect((await listed(b)).map((o) => o._id).sort()).toEqual([a.organizationId, b.organizationId].sort());
    // …and once it is older, the tick checks it against its shard and deletes it.
    await ageIndexRows(b.id);
    await callScheduled(Date.now());
    expect(await listed(b)).toEqual(await truth(b, [a.organizationId, b.organizationId]));
    expect((await listed(b)).map((o) => o._id)).toEqual([b.organizationId]);
    // The row still held was checked, not deleted, and stamped: it leaves the front of the queue.
    const held = await env.DB.prepare(`SELECT synced_at FROM user_organizations WHERE user_id = ?1`)
      .bind(b.id)
      .first<{ synced_at: number }>();
    expect(held!.synced_at).toBeGreaterThan(Date.now() - USER_ORGANIZATIONS_GRACE_MS);
  });

  it("an organization changed in its shard (as a rename would) is corrected for every member by the tick", async () => {
    const a = await user("Renamed owner");
    const b = await userOnAnotherShard("Renamed member", a.organizationId);
    await ok("POST", `/organization/${a.organizationId}/member`, {
      token: a.token,
      body: { email: b.email, role: "member" },
    });
    // The memberships themselves are old (from before the column, in the shard and in the index alike): only the
    // organization's own change can lead the repair to them.
    await env.DB.prepare(`UPDATE user_organizations SET member_updated_at = 0 WHERE organization_id = ?1`)
      .bind(a.organizationId)
      .run();
    const shard = shardD1(a.organizationId);
    await shard.batch([
      shard.prepare(`UPDATE organization_members SET updated_at = 0 WHERE organization_id = ?1`).bind(a.organizationId),
      shard
        .prepare(`UPDATE organizations SET name = 'Renamed', updated_at = ?2 WHERE id = ?1`)
        .bind(a.organizationId, Date.now() + 1),
    ]);
    await reconcileUserOrganizations(env, Date.now());
    for (const u of [a, b]) {
      expect((await listed(u)).find((o) => o._id === a.organizationId)?.name, u.name).toBe("Renamed");
      expect(await listed(u)).toEqual(
        await truth(
          u,
          [a.organizationId, u.organizationId].filter((id, i, all) => all.indexOf(id) === i),
        ),
      );
    }
  });

  it("checks at most 200 index rows a tick, the least recently checked first, and the rest at the next tick", async () => {
    // 250 rows naming memberships no shard holds, checked before every other row (synced_at 0): a tick deletes 200.
    const userId = newShardedId(7);
    const orgs = Array.from({ length: 250 }, (_, i) => newShardedId(i % 4));
    await env.DB.prepare(
      `INSERT INTO user_organizations (user_id, organization_id, name, owner_id, role, created_at, updated_at, member_updated_at, synced_at)
       SELECT ?1, value, 'Gone', ?1, 'member', 0, 0, 0, 0 FROM json_each(?2)`,
    )
      .bind(userId, JSON.stringify(orgs))
      .run();
    const left = async () =>
      (await env.DB.prepare(`SELECT COUNT(*) AS n FROM user_organizations WHERE user_id = ?1`)
        .bind(userId)
        .first<{ n: number }>())!.n;
    const first = await reconcileUserOrganizations(env, Date.now());
    expect(first.removed).toBeGreaterThanOrEqual(200);
    expect(await left()).toBe(50);
    await reconcileUserOrganizations(env, Date.now());
    expect(await left()).toBe(0);
  });
});
