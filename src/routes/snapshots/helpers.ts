import type { AuthUser, Db } from "../../env";
import { requireDocument, type DocumentLevel } from "../../auth/access";
import { ApiError, notFound } from "../../errors";
import { findSnapshot } from "../../services/content/snapshots";

/** The snapshot if its document allows `level`; a snapshot of an unreadable document is simply not found. */
export async function requireSnapshot(db: Db, user: AuthUser, id: string, level: DocumentLevel) {
  const snapshot = await findSnapshot(db, id);
  if (!snapshot) throw notFound("Snapshot");
  try {
    const access = await requireDocument(db, user, snapshot.documentId, level);
    return { snapshot, access };
  } catch (err) {
    throw err instanceof ApiError && err.code === "NotFoundError" ? notFound("Snapshot") : err;
  }
}
