import { sqliteTable, text, integer, index } from "drizzle-orm/sqlite-core";
import { documents } from "./documents";

/**
 * Documents whose collaborative room (src/durable/DocumentRoom.ts) holds state, and whether sockets are connected
 * (`live`). Written by the room itself; read by the Worker to route content writes and snapshot restores through the
 * room (only where it has state) and to re-check access only in live rooms when collaborators change.
 */
export const collabRooms = sqliteTable(
  "collab_rooms",
  {
    documentId: text("document_id")
      .primaryKey()
      .references(() => documents.id),
    live: integer("live").notNull().default(0),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("collab_rooms_live_idx").on(t.live)],
);
