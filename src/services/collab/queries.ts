/**
 * The collaborative editing area's raw statements (docs/architecture.md, "Services and statements"), built here and
 * run by the area's services.
 */
import { statement } from "../../db/d1";

/** The live document `documentId` with its project and parent (no row once it is deleted). */
export function liveDocumentStatement(d1: D1Database, documentId: string) {
  return statement(
    d1,
    "SELECT id, project_id AS projectId, parent_id AS parentId FROM documents WHERE id = ?1 AND is_deleted = 0",
    documentId,
  );
}
