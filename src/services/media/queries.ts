/**
 * The media area's statement builders (docs/architecture.md, "Services and statements"): they return the query (or
 * the SQL) without running it; ./audio.ts runs them.
 */
import { eq, sql } from "drizzle-orm";
import { audioMedia, documents } from "../../db/schema";
import type { Db } from "../../env";

/** Batchable: the audio record (no row when unknown). */
export function audioStatement(db: Db, audioId: string) {
  return db.select().from(audioMedia).where(eq(audioMedia.id, audioId));
}

/** The document of an audio record, as the SQL id list access statements take (same batch as the record). */
export const documentOfAudio = (audioId: string) =>
  sql`SELECT document_id FROM ${audioMedia} WHERE ${audioMedia.id} = ${audioId}`;

/** Batchable: the audio record (as `audio`) with whether its document is soft-deleted (no row when unknown). */
export function audioWithDocumentStatement(db: Db, audioId: string) {
  return db
    .select({ audio: audioMedia, documentDeleted: documents.isDeleted })
    .from(audioMedia)
    .innerJoin(documents, eq(documents.id, audioMedia.documentId))
    .where(eq(audioMedia.id, audioId));
}
