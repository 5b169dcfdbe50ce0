/**
 * The Worker's side of the collaborative rooms (src/durable/DocumentRoom.ts): reaching a document's room, knowing
 * from D1 which documents have one (`collab_rooms`, written by the rooms), and telling live rooms that access changed.
 */
import { eq, sql } from "drizzle-orm";
import type { Db, Env } from "../../env";
import { collabRooms } from "../../db/schema";
import { ApiError } from "../../errors";
import { mapConcurrent } from "../../lib/concurrency";
import { inJson } from "../../db/sql";
import { inSubtree } from "../documents/tree";
import type { RoomResult } from "../../durable/DocumentRoom";

export function roomOf(env: Env, documentId: string) {
  return env.DOCUMENT_ROOM.get(env.DOCUMENT_ROOM.idFromName(documentId));
}

/** For a read batch: one row when the document's room holds state (content writes must then go through it). */
export function roomStateStatement(db: Db, documentId: string) {
  return db
    .select({ documentId: collabRooms.documentId })
    .from(collabRooms)
    .where(eq(collabRooms.documentId, documentId));
}

/** A room's answer, with its error rethrown as the ApiError it was (errors cross the RPC boundary as data). */
export function unwrapRoom<T>(result: RoomResult<T>): T {
  if (!result.ok) throw new ApiError(result.error.code, result.error.message);
  return result.value;
}

/** Live rooms re-checked at once; more are re-checked in parallel up to this many. */
const REVALIDATE_CONCURRENCY = 6;

/**
 * For a batch: the documents among `scope` (by id, every document of a workspace, or a document's subtree) whose room has sockets
 * connected. Riding in the batch that changes access costs no extra D1 round trip.
 */
export function liveRoomsStatement(
  db: Db,
  scope: { documentIds: readonly string[] } | { workspaceId: string } | { subtreeOf: string },
) {
  const where =
    "workspaceId" in scope
      ? sql`${collabRooms.documentId} IN (SELECT id FROM documents WHERE workspace_id = ${scope.workspaceId})`
      : "subtreeOf" in scope
        ? inSubtree(collabRooms.documentId, scope.subtreeOf)
        : inJson(collabRooms.documentId, scope.documentIds);
  return db
    .select({ documentId: collabRooms.documentId })
    .from(collabRooms)
    .where(sql`${collabRooms.live} = 1 AND ${where}`);
}

/**
 * After a change of who may read or edit documents: each live room re-checks its connected `userIds` (all connected
 * users when omitted) against D1 and drops those who lost access. Rooms without sockets are skipped (`live` from
 * `liveRoomsStatement`), since access is checked again on every connect. A failing room is logged, never thrown:
 * the access change itself has happened.
 */
export async function revalidateRooms(env: Env, live: readonly { documentId: string }[], userIds?: string[]) {
  let disconnected = 0;
  await mapConcurrent(live, REVALIDATE_CONCURRENCY, async ({ documentId }) => {
    try {
      disconnected += (await roomOf(env, documentId).revalidateAccess(userIds)).disconnected;
    } catch (err) {
      console.error(`collab: re-checking access in the room of ${documentId} failed`, err);
    }
  });
  return { rooms: live.length, disconnected };
}
