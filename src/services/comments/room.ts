/**
 * The document room hears of comment changes (docs/api-guide.md › Comments, the `comments` message): after a write
 * on a document whose room has connected clients, the room broadcasts which thread changed. Best effort, after the
 * answer: a client that missed it re-reads the listing.
 */
import { sql } from "drizzle-orm";
import { collabRooms } from "../../db/schema";
import type { Db } from "../../env";
import type { ServiceContext } from "../context";
import { roomOf } from "../collab/rooms";

/** What a comment verb did (write.ts); its event is `comment.<change>`. */
export type WrittenChange = "created" | "updated" | "deleted" | "resolved" | "reopened";

export interface ThreadChange {
  /** "detached" / "attached": a content write removed the thread's anchor block, or brought it back (anchors.ts). */
  change: WrittenChange | "detached" | "attached";
  threadId: string;
  commentId: string;
}

/** For a read batch: one row when the document (SQL or id) has a room with connected sockets. */
export function liveRoomOf(db: Db, documentId: ReturnType<typeof sql> | string | null) {
  return db
    .select({ documentId: collabRooms.documentId })
    .from(collabRooms)
    .where(sql`${collabRooms.live} = 1 AND ${collabRooms.documentId} = ${documentId}`);
}

export function tellRoom(ctx: ServiceContext, documentId: string, change: ThreadChange): void {
  ctx.waitUntil(
    roomOf(ctx.env, documentId)
      .commentsChanged(change)
      .catch((err) => console.error(`comments: telling the room of ${documentId} failed`, err)),
  );
}
