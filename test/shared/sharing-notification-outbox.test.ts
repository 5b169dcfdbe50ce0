// Sharing and membership notices through the notification outbox (docs/scaling.md "Notifications: an outbox"):
// adding an organization member, a workspace collaborator or sharing a document queues its notice in the shard's
// notification_outbox in the batch of the membership, collaboration or grant, copies it into the directory's
// notifications before the answer and empties the outbox after it; when the directory refuses, the share stands and
// the scheduler tick delivers the notice once. "The same notice" is the one about the same new membership,
// collaboration or grant: an add or share repeated (by the client, or replayed under its Idempotency-Key, or sent
// twice at once) makes nothing new and tells no one again; a collaboration ended and made again, or a share that
// raises the role, is a new notice. The per-sender limit (20 an hour, the rest folded) holds on the drain too.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { call, ok, registerUser, seedTenant, type RegisteredUser, type Tenant } from "../support/harness";
import { callScheduled, eventually } from "../support/automations";
import { shardD1 } from "../support/shards";
import { drainNotificationOutbox, noticeId } from "../../src/services/notifications/outbox";
import { NOTIFICATIONS_PER_SENDER_PER_HOUR } from "../../src/services/organizations/invitations";

let t: Tenant;

beforeAll(async () => {
  t = await seedTenant();
});

/** `user`'s notifications of `kind` (through the API). */
async function listed(user: RegisteredUser, kind: string): Promise<any[]> {
  return (await ok("GET", "/notification/all", { token: user.token })).data.filter((x: any) => x.kind === kind);
}

/** The outbox rows for `userId` in the shard database of `recordId`. */
async function outboxFor(recordId: string, userId: string) {
  const { results } = await shardD1(recordId)
    .prepare(`SELECT id, kind FROM notification_outbox WHERE user_id = ?1`)
    .bind(userId)
    .all<{ id: string; kind: string }>();
  return results;
}

/** The outbox empties after the answer (its delete runs in waitUntil). */
async function outboxEmpties(recordId: string, userId: string) {
  await eventually(async () => (await outboxFor(recordId, userId)).length === 0, 10_000, "an empty outbox");
}

/** Runs `work` while the directory refuses every notification for `userId` (the second half fails on purpose). */
async function whileDirectoryRefuses<T>(userId: string, work: () => Promise<T>): Promise<T> {
  const name = `test_refuse_${userId.toLowerCase()}`;
  await env.DB.prepare(
    `CREATE TRIGGER ${name} BEFORE INSERT ON notifications WHEN NEW.user_id = '${userId}' BEGIN SELECT RAISE(ABORT, 'refused on purpose'); END`,
  ).run();
  try {
    return await work();
  } finally {
    await env.DB.prepare(`DROP TRIGGER ${name}`).run();
  }
}

/** Ages `userId`'s outbox rows in `recordId`'s shard past the drain's grace period. */
async function age(recordId: string, userId: string) {
  await shardD1(recordId)
    .prepare(`UPDATE notification_outbox SET queued_at = queued_at - 60000 WHERE user_id = ?1`)
    .bind(userId)
    .run();
}

const addMember = (user: RegisteredUser, headers?: Record<string, string>) =>
  call("POST", `/organization/${t.organizationId}/member`, {
    token: t.owner.token,
    body: { email: user.email, role: "member" },
    headers,
  });
const share = (user: RegisteredUser, role = "viewer", documentId = t.docId) =>
  call("POST", "/document/invite-user", { token: t.owner.token, body: { email: user.email, documentId, role } });

describe("sharing and membership notices go through the shard's outbox", () => {
  it("adding an organization member notifies them once, under an id derived from the membership, and leaves the outbox empty", async () => {
    const newcomer = await registerUser("Newcomer");
    await ok("GET", "/me", { token: t.owner.token });
    const res = await addMember(newcomer);
    expect(res.status).toBe(200);
    // Within the write budget: the access read, the shard batch with the outbox row, the directory's copy.
    expect(Number(res.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
    // Copied into the directory before the answer: listed at once.
    const notes = await listed(newcomer, "organization.member_added");
    expect(notes).toHaveLength(1);
    expect(notes[0].data).toMatchObject({ organizationId: t.organizationId, role: "member", invitedBy: t.owner.id });
    const { created_at } = (await shardD1(t.organizationId)
      .prepare(`SELECT created_at FROM organization_members WHERE organization_id = ?1 AND user_id = ?2`)
      .bind(t.organizationId, newcomer.id)
      .first<{ created_at: number }>())!;
    expect(notes[0]._id).toBe(noticeId(t.organizationId, `organization.member_added\n${newcomer.id}\n${created_at}`));
    // On the organization's logical shard, like the outbox row it was.
    expect(notes[0]._id.slice(-2)).toBe(t.organizationId.slice(-2));
    await outboxEmpties(t.organizationId, newcomer.id);
  });

  it("sharing a document or a workspace notifies the recipient once and leaves the outbox empty", async () => {
    const guest = await registerUser("Guest");
    await ok("GET", "/me", { token: t.owner.token });
    const shared0 = await share(guest);
    expect(shared0.status).toBe(200);
    expect(Number(shared0.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
    const shared = await listed(guest, "document.invited");
    expect(shared).toHaveLength(1);
    expect(shared[0].data).toEqual({ documentId: t.docId, role: "viewer", invitedBy: t.owner.id });
    expect(shared[0]._id.slice(-2)).toBe(t.docId.slice(-2));
    await outboxEmpties(t.docId, guest.id);

    const colleague = await registerUser("Colleague");
    const added = await call("POST", `/workspace/${t.workspaceId}/collaborator`, {
      token: t.owner.token,
      body: { email: colleague.email, role: "editor" },
    });
    expect(added.status).toBe(200);
    expect(Number(added.headers.get("x-d1-round-trips"))).toBeLessThanOrEqual(3);
    const told = await listed(colleague, "workspace.shared");
    expect(told).toHaveLength(1);
    expect(told[0].data).toEqual({ workspaceId: t.workspaceId, role: "editor", invitedBy: t.owner.id });
    await outboxEmpties(t.workspaceId, colleague.id);
  });

  it("when the directory refuses the notice, the share stands, the notice waits in the outbox and the tick delivers it once", async () => {
    const member = await registerUser("Refused member");
    const guest = await registerUser("Refused guest");
    const [added, shared] = await whileDirectoryRefuses(member.id, () =>
      whileDirectoryRefuses(guest.id, async () => [await addMember(member), await share(guest)]),
    );
    // The first half committed: the membership and the grant are there.
    expect(added!.status).toBe(200);
    expect(shared!.status).toBe(200);
    expect(((await ok("GET", "/organization/all", { token: member.token })).data as any[]).map((o) => o._id)).toContain(
      t.organizationId,
    );
    expect((await ok("GET", `/access/document/${t.docId}`, { token: guest.token })).data).toBe(true);
    // The second half did not: no notice listed, each waiting in its shard's outbox.
    expect(await listed(member, "organization.member_added")).toEqual([]);
    expect(await listed(guest, "document.invited")).toEqual([]);
    expect((await outboxFor(t.organizationId, member.id)).map((r) => r.kind)).toEqual(["organization.member_added"]);
    expect((await outboxFor(t.docId, guest.id)).map((r) => r.kind)).toEqual(["document.invited"]);

    // Within the grace period the drain leaves them.
    await drainNotificationOutbox(env, Date.now());
    expect(await listed(member, "organization.member_added")).toEqual([]);

    // The scheduler's tick delivers them once they are older than that.
    await age(t.organizationId, member.id);
    await age(t.docId, guest.id);
    await callScheduled(Date.now());
    expect(await listed(member, "organization.member_added")).toHaveLength(1);
    expect(await listed(guest, "document.invited")).toHaveLength(1);
    expect(await outboxFor(t.organizationId, member.id)).toEqual([]);
    expect(await outboxFor(t.docId, guest.id)).toEqual([]);

    // Later ticks keep one; so does a delivery repeated after the directory took it (the outbox's delete lost).
    const [note] = await listed(member, "organization.member_added");
    await shardD1(t.organizationId)
      .prepare(
        `INSERT INTO notification_outbox (id, user_id, kind, title, body, data, created_at, queued_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?7)`,
      )
      .bind(note._id, member.id, note.kind, note.title, note.body, JSON.stringify(note.data), note.createdAt - 60_000)
      .run();
    await callScheduled(Date.now() + 60_000);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    expect(await listed(member, "organization.member_added")).toHaveLength(1);
    expect(await listed(guest, "document.invited")).toHaveLength(1);
    expect(await outboxFor(t.organizationId, member.id)).toEqual([]);
  });

  it("an add repeated, replayed under its Idempotency-Key or sent several times at once tells the member once", async () => {
    const member = await registerUser("Repeated member");
    const key = `member-${member.id}`;
    expect((await addMember(member, { "Idempotency-Key": key })).status).toBe(200);
    expect((await addMember(member, { "Idempotency-Key": key })).status).toBe(200);
    expect((await addMember(member)).status).toBe(200);
    expect(await listed(member, "organization.member_added")).toHaveLength(1);

    // Adds sent at once: each finds no membership, one makes it, and only that batch queues a notice.
    const twin = await registerUser("Twin member");
    const all = await Promise.all(Array.from({ length: 4 }, () => addMember(twin)));
    expect(all.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await drainNotificationOutbox(env, Date.now() + 60_000);
    expect(await listed(twin, "organization.member_added")).toHaveLength(1);
    await outboxEmpties(t.organizationId, twin.id);
  });

  it("a workspace collaboration ended and made again is a new notice; the same add repeated is not", async () => {
    const colleague = await registerUser("Returning colleague");
    const add = () =>
      ok("POST", `/workspace/${t.workspaceId}/collaborator`, {
        token: t.owner.token,
        body: { email: colleague.email, role: "viewer" },
      });
    await Promise.all([add(), add(), add(), add()]);
    await add();
    expect(await listed(colleague, "workspace.shared")).toHaveLength(1);
    await ok("DELETE", `/workspace/${t.workspaceId}/collaborator/${colleague.id}`, { token: colleague.token });
    await add();
    const notes = await listed(colleague, "workspace.shared");
    expect(notes).toHaveLength(2);
    // Each about its own collaboration: the workspace, the user and when the collaboration began.
    const { created_at } = (await shardD1(t.workspaceId)
      .prepare(`SELECT created_at FROM workspace_collaborators WHERE workspace_id = ?1 AND user_id = ?2`)
      .bind(t.workspaceId, colleague.id)
      .first<{ created_at: number }>())!;
    expect(notes[0]._id).toBe(noticeId(t.workspaceId, `workspace.shared\n${colleague.id}\n${created_at}`));
  });

  it("a share repeated tells the recipient once; one that raises the role is a new notice", async () => {
    const guest = await registerUser("Repeated guest");
    for (const res of await Promise.all([share(guest), share(guest)])) expect(res.status).toBe(200);
    expect((await share(guest)).status).toBe(200);
    expect(await listed(guest, "document.invited")).toHaveLength(1);
    // A lower role grants nothing (roles are raised, never lowered): no notice.
    expect((await share(guest, "viewer")).status).toBe(200);
    expect(await listed(guest, "document.invited")).toHaveLength(1);
    expect((await share(guest, "editor")).status).toBe(200);
    const notes = await listed(guest, "document.invited");
    expect(notes.map((n) => n.data.role).sort()).toEqual(["editor", "viewer"]);
    await outboxEmpties(t.docId, guest.id);
  });

  it("the per-sender limit holds when the tick delivers many notices at once", async () => {
    const victim = await registerUser("Drained victim");
    const total = NOTIFICATIONS_PER_SENDER_PER_HOUR + 5;
    const docs: string[] = [];
    for (let i = 0; i < total; i++)
      docs.push(
        (
          await ok("POST", "/document", {
            token: t.owner.token,
            body: { projectId: t.projectId, name: `Queued ${i}`, type: "DOCUMENT" },
          })
        ).data._id,
      );
    await whileDirectoryRefuses(victim.id, async () => {
      for (const doc of docs) expect((await share(victim, "viewer", doc)).status).toBe(200);
    });
    expect(await outboxFor(t.docId, victim.id)).toHaveLength(total);
    await age(t.docId, victim.id);
    await callScheduled(Date.now());
    const notes = await listed(victim, "document.invited");
    expect(notes).toHaveLength(NOTIFICATIONS_PER_SENDER_PER_HOUR);
    // The others are folded into the newest, not lost.
    expect(notes.reduce((sum, n) => sum + 1 + (n.data?.folded ?? 0), 0)).toBe(total);
    expect(await outboxFor(t.docId, victim.id)).toEqual([]);
  });
});
