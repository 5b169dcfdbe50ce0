import { eq } from "drizzle-orm";
import { organizationMembers, organizations, users, workspaceCollaborators, workspaces } from "../../db/schema";
import { conflict } from "../../errors";
import { isUniqueViolation } from "../../db/errors";
import { newId } from "../../lib/ids";
import { prepareToken } from "./tokens";
import { applyPendingInvitations, pendingInvitationsOf } from "../documents/invitations";
import { applyPendingMemberInvitations, pendingMemberInvitationsOf } from "../organizations/invitations";
import { workspaceDto } from "../workspaces/serialize";
import { indexMemberships } from "../organizations/userOrganizations";
import { reconcileIndex, type DirectoryIndex, type ServiceContext } from "../context";
import { keptAnswerUpdates } from "../idempotency";
import { userCopyStatement } from "./queries";
import type { Env } from "../../env";
import { recordAuditEvent } from "../audit/log";

export function userDto(row: typeof users.$inferSelect) {
  return { _id: row.id, email: row.email, name: row.name, createdAt: row.createdAt };
}

export function organizationDto(row: typeof organizations.$inferSelect, role?: string) {
  return {
    _id: row.id,
    name: row.name,
    ownerId: row.ownerId,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(role ? { role } : {}),
  };
}

/** What a registration writes, all known before its first write (so its answer can be kept with that write). */
interface Registration {
  user: typeof users.$inferSelect;
  org: typeof organizations.$inferSelect;
  ws: typeof workspaces.$inferSelect;
}

function registrationRows(input: {
  userId: string;
  orgId: string;
  wsId: string;
  email: string;
  name: string;
  at: number;
}): Registration {
  const { userId, orgId, wsId, email, name, at: t } = input;
  return {
    user: { id: userId, email, name, createdAt: t, updatedAt: t },
    org: { id: orgId, name: `${name}'s organization`, ownerId: userId, createdAt: t, updatedAt: t },
    ws: {
      id: wsId,
      organizationId: orgId,
      name: "My workspace",
      description: "",
      isDefault: true,
      isShared: false,
      ownerId: userId,
      createdAt: t,
      updatedAt: t,
    },
  };
}

/**
 * Registration (docs/scaling.md, "Users in every shard"): the user and a first token in the directory (a taken
 * email fails on its unique index: 409, nothing written); then, in every shard database at once, the user's copy
 * and the pending invitations for the email — and in the shard the new personal organization is placed on, that
 * organization with a default workspace the user owns; then the invitations found are applied, shard by shard.
 * Three D1 round trips one after another (two when nothing is pending). A shard that fails after the directory has
 * committed is repaired by the scheduler (`repairUserCopies`) for the user's copies, and by a retry of the request
 * for the rest: the answer (with its token, sealed) is kept with the directory's write under the request's
 * Idempotency-Key (docs/api-guide.md › HTTP semantics), and its replay completes the registration
 * (`completeReplayedRegistration`).
 */
export async function createUser(ctx: ServiceContext, input: { email: string; name: string }) {
  const { dir, now: t } = ctx;
  const orgId = ctx.ids.organization();
  const rows = registrationRows({
    userId: newId(),
    orgId,
    wsId: ctx.ids.beside(orgId),
    email: input.email,
    name: input.name,
    at: t,
  });
  const { user, org, ws } = rows;
  const { record: token, insert: insertToken } = await prepareToken(ctx, {
    userId: user.id,
    name: "default",
    expiresAt: null,
  });
  const answer = {
    user: userDto(user),
    organization: organizationDto(org),
    workspace: workspaceDto(ws, [{ userId: user.id, role: "owner" }]),
    token,
  };
  try {
    // The answer rides with the directory's write (the claim of an admin route is in the directory).
    await dir.batch([
      dir.insert(users).values(user),
      insertToken,
      ...(await keptAnswerUpdates(ctx, { payload: { data: answer } })),
    ]);
  } catch (err) {
    // A taken email, or two registrations racing for one: the unique index decides.
    if (isUniqueViolation(err, "users.email")) throw conflict("A user with this email is already registered");
    throw err;
  }
  await writeRegistrationToShards(ctx, rows);
  // The deployment's admin made it: in the new organization's audit log (it has no other yet).
  recordAuditEvent(ctx, {
    kind: "admin.user_created",
    organizationId: orgId,
    recordId: user.id,
    actor: { type: "system" },
    changes: { email: { before: null, after: user.email } },
  });
  return answer;
}

/**
 * The shards' part of a registration whose directory write committed. The home shard's batch inserts the
 * organization first: when a retry's completion (or the request it retries) got there first, that batch fails on the
 * organization's id and writes nothing; the other shards' part is idempotent (copies and invitations applied once).
 */
async function writeRegistrationToShards(ctx: ServiceContext, { user, org, ws }: Registration) {
  const t = user.createdAt;
  const home = ctx.on(org.id).binding;
  const shards = ctx.everyShard();
  // Every shard at once: the user's copy and its pending invitations; the home shard also the new organization.
  // The directory's index of memberships (docs/scaling.md) gets the new organization beside the shards' writes, so
  // registration keeps its round trips; should the home shard's write fail, the repair deletes the row.
  const indexed = indexMemberships(ctx, [
    { ...org, organizationId: org.id, userId: user.id, role: "owner", memberUpdatedAt: t },
  ]);
  const found = await Promise.all(
    shards.map(async (shard) => {
      const { db } = shard;
      const own =
        shard.binding === home
          ? [
              db.insert(organizations).values(org),
              db
                .insert(organizationMembers)
                .values({ organizationId: org.id, userId: user.id, role: "owner", createdAt: t, updatedAt: t }),
              db.insert(workspaces).values(ws),
              db
                .insert(workspaceCollaborators)
                .values({ workspaceId: ws.id, userId: user.id, role: "owner", createdAt: t }),
            ]
          : [];
      try {
        const results = await db.batch([
          userCopyStatement(db, user),
          ...own,
          pendingInvitationsOf(db, user.email),
          pendingMemberInvitationsOf(db, user.email),
        ]);
        const [documentInvitations, memberships] = results.slice(-2) as [
          Awaited<ReturnType<typeof pendingInvitationsOf>>,
          Awaited<ReturnType<typeof pendingMemberInvitationsOf>>,
        ];
        return { shard, documentInvitations, memberships };
      } catch (err) {
        // Written already by the other of a request and its retry, which applies the home shard's invitations.
        if (isUniqueViolation(err, "organizations.id")) return { shard, documentInvitations: [], memberships: [] };
        throw err;
      }
    }),
  );
  await indexed;
  // Document grants and memberships touch different tables: each shard applies both at once.
  await Promise.all(
    found.flatMap(({ shard, documentInvitations, memberships }) => [
      applyPendingInvitations(shard, { user: { id: user.id, email: user.email }, pending: documentInvitations }),
      applyPendingMemberInvitations(shard, { user: { id: user.id, email: user.email }, pending: memberships }),
    ]),
  );
}

/**
 * The replay of a kept registration answer: when its organization is not in its home shard (organizations are never
 * deleted, so it was never written: the request died after the directory's write), the shards' part is done now,
 * so the replayed token opens the organization and workspace it names. One read when the registration is complete.
 */
export async function completeReplayedRegistration(ctx: ServiceContext, kept: { status: number; body: string | null }) {
  if (kept.status !== 200 || kept.body === null) return;
  const { data } = JSON.parse(kept.body) as { data: Awaited<ReturnType<typeof createUser>> };
  const orgId = data.organization._id;
  const home = ctx.on(orgId).db;
  const [written] = await home.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, orgId));
  if (written) return;
  const { user, workspace } = data;
  await writeRegistrationToShards(
    ctx,
    registrationRows({
      userId: user._id,
      orgId,
      wsId: workspace._id,
      email: user.email,
      name: user.name,
      at: user.createdAt,
    }),
  );
}

/** How far back the repair looks for users whose copy a shard lacks (a registration interrupted between databases). */
const USER_REPAIR_WINDOW_MS = 24 * 60 * 60_000;

/**
 * Users' copies as src/tenancy/operations/directoryIndex.ts repairs them: the one index whose records (users) are in
 * the directory and whose claims (their copies) are in every shard. Users are never deleted, so no copy is orphaned.
 */
const USER_COPIES: DirectoryIndex<never, never, typeof users.$inferSelect> = {
  missing: {
    records: "directory",
    wanted: [
      {
        sql: `SELECT id, email, name, created_at AS createdAt, updated_at AS updatedAt FROM users WHERE created_at >= ?1`,
        bind: (since) => [since],
      },
    ],
    claimsOf: (u) => [[u.id, u.email, u.name, u.createdAt, u.updatedAt]],
    insertClaims: {
      sql: `INSERT INTO users (id, email, name, created_at, updated_at)
        SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'), json_extract(value, '$[2]'),
          json_extract(value, '$[3]'), json_extract(value, '$[4]') FROM json_each(?1) WHERE true
        ON CONFLICT (id) DO NOTHING`,
      bind: (chunk) => [chunk],
    },
  },
};

/**
 * The repair of registrations interrupted after the directory committed (docs/scaling.md "Repairs"): every user
 * registered in the last day (or since `since`) gets its copy in every shard database that lacks it; a copy a shard
 * holds is left alone, so a tick with nothing to repair writes nothing. Idempotent; run every minute by the Worker's
 * repairs. Returns how many copies it wrote.
 */
export async function repairUserCopies(env: Env, now: number, since = now - USER_REPAIR_WINDOW_MS): Promise<number> {
  return (await reconcileIndex(env, USER_COPIES, now, since)).added;
}
