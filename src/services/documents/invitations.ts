import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { documentCollaborators, invitations, notifications } from "../../db/schema";
import type { Db, Env } from "../../env";
import { newId, now } from "../../lib/ids";
import type { DocumentRole } from "../../auth/access";
import { subtreeIds } from "./tree";
import { revalidateRooms } from "../collab/rooms";

/**
 * Grant `role` on each document; an existing grant is raised to it, never lowered (else an editor could
 * strip an owner by "inviting" them as viewer). One statement for any number of ids.
 * It must be a query builder, not db.run(sql): drizzle's D1 batch cannot bind a raw statement's parameters
 * (TypeError, so every invitation of an existing user and every registration with a pending one was a 500).
 * `WHERE true` resolves SQLite's INSERT … SELECT … ON CONFLICT parsing ambiguity.
 */
function grantStatement(db: Db, userId: string, role: DocumentRole, documentIds: string[], at: number) {
  return db
    .insert(documentCollaborators)
    .select(sql`SELECT value, ${userId}, ${role}, ${at} FROM json_each(${JSON.stringify(documentIds)}) WHERE true`)
    .onConflictDoUpdate({
      target: [documentCollaborators.documentId, documentCollaborators.userId],
      set: { role: sql`CASE WHEN ${rank(sql`excluded.role`)} > ${rank(documentCollaborators.role)} THEN excluded.role ELSE ${documentCollaborators.role} END` },
    });
}

function rank(role: SQL | typeof documentCollaborators.role) {
  return sql`(CASE ${role} WHEN 'owner' THEN 3 WHEN 'editor' THEN 2 ELSE 1 END)`;
}

export interface InviteResult {
  invitationsSent: number;
  documentsInvited: number;
  usersInvited: number;
}

/**
 * E7: the invitation covers the document and, for a folder, every live document below it. An existing user is
 * granted at once (and notified); an unknown email gets a pending invitation applied when it registers.
 */
export async function inviteToDocument(
  db: Db,
  input: { inviterId: string; inviterName: string; documentId: string; documentName: string; email: string; role: DocumentRole; existingUserId: string | null },
  env?: Env,
): Promise<InviteResult> {
  const covered = await subtreeIds(db, input.documentId, { onlyLive: true });
  const t = now();
  const invitation = {
    id: newId(),
    email: input.email,
    documentId: input.documentId,
    role: input.role,
    invitedBy: input.inviterId,
    createdAt: t,
    acceptedAt: input.existingUserId ? t : null,
  };
  if (input.existingUserId) {
    await db.batch([
      db.insert(invitations).values(invitation),
      grantStatement(db, input.existingUserId, input.role, covered, t),
      db.insert(notifications).values({
        id: newId(),
        userId: input.existingUserId,
        kind: "document.invited",
        title: `${input.inviterName} shared "${input.documentName}" with you`,
        body: `You were given the ${input.role} role on ${covered.length} document(s).`,
        data: { documentId: input.documentId, role: input.role, invitedBy: input.inviterId },
        createdAt: t,
      }),
    ]);
    // A raised role takes effect in live collaborative rooms at once (a viewer who became editor may now edit).
    if (env) await revalidateRooms(env, db, { documentIds: covered }, [input.existingUserId]);
  } else {
    await db.insert(invitations).values(invitation);
  }
  return { invitationsSent: 1, documentsInvited: covered.length, usersInvited: input.existingUserId ? 1 : 0 };
}

/** At registration: every pending invitation for the email becomes grants over the documents it covers now. */
export async function applyPendingInvitations(db: Db, user: { id: string; email: string }) {
  const pending = await db
    .select()
    .from(invitations)
    .where(and(eq(invitations.email, user.email), isNull(invitations.acceptedAt)))
    .orderBy(invitations.createdAt);
  if (pending.length === 0) return 0;
  const t = now();
  const statements = [];
  for (const inv of pending) {
    const covered = await subtreeIds(db, inv.documentId, { onlyLive: true });
    if (covered.length > 0) statements.push(grantStatement(db, user.id, inv.role as DocumentRole, covered, t));
    statements.push(db.update(invitations).set({ acceptedAt: t }).where(eq(invitations.id, inv.id)));
  }
  await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  return pending.length;
}

